// ECB, CBC, CTR, XTS and DES through EVP: one keyed context per direction,
// made once per session; a request only sets its IV.
#include <openssl/core_names.h>
#include <openssl/err.h>

#include "soft_driver.hpp"

namespace cryptoaccel::soft {
namespace {

class SoftCipherSession final : public DriverSession {
 public:
  SoftCipherSession(const Algorithm& algorithm, const EVP_CIPHER* cipher,
                    std::span<const std::uint8_t> key)
      : algorithm_(algorithm), cipher_(cipher), key_(key) {}

  std::size_t process(std::span<Request> batch) noexcept override {
    for (Request& r : batch) r.status = continue_chain(r);
    return batch.size();
  }

  void process_one(Request& r) noexcept override { r.status = continue_chain(r); }

 private:
  // The hot path of a stream, kept small: the context already holds the
  // chain, so one EVP call does the request. Anything else goes to crypt().
  [[gnu::always_inline]] ErrorCode continue_chain(Request& r) noexcept {
    const bool encrypt = r.op == Operation::encrypt;
    Direction& d = encrypt ? encrypt_ : decrypt_;
    if (!(r.continues && d.primed && r.in.size() <= kMaxUpdate)) [[unlikely]]
      return crypt(r);
    // The direction-specific calls: EVP_CipherUpdate is one more call.
    int out_len = 0;
    const int in_len = static_cast<int>(r.in.size());
    const int ok =
        encrypt ? EVP_EncryptUpdate(d.ctx.get(), r.out.data(), &out_len, r.in.data(), in_len)
                : EVP_DecryptUpdate(d.ctx.get(), r.out.data(), &out_len, r.in.data(), in_len);
    if (ok == 1 && out_len == in_len) [[likely]]
      return ErrorCode::ok;
    d.primed = false;
    return fail();
  }

  // A direction's keyed context, and whether it holds a chain a request
  // may continue (see Request::continues).
  struct Direction {
    CipherCtxPtr ctx;
    bool primed = false;
  };

  bool ready(Direction& d, bool encrypt) {
    if (d.ctx) return true;
    d.ctx.reset(EVP_CIPHER_CTX_new());
    if (!d.ctx) return false;
    if (EVP_CipherInit_ex2(d.ctx.get(), cipher_, key_.data(), nullptr, encrypt ? 1 : 0, nullptr) !=
            1 ||
        EVP_CIPHER_CTX_set_padding(d.ctx.get(), 0) != 1) {
      d.ctx.reset();
      return false;
    }
    return true;
  }

  [[gnu::noinline]] ErrorCode crypt(Request& r) noexcept {
    const bool encrypt = r.op == Operation::encrypt;
    Direction& d = encrypt ? encrypt_ : decrypt_;
    if (r.op == Operation::digest) return ErrorCode::unsupported;
    if (!d.ctx && !ready(d, encrypt)) return fail();
    const CipherMode mode = algorithm_.mode;
    // The other direction's chain is unaffected, but a request in this
    // direction that is not a continuation replaces this one's.
    if (mode != CipherMode::ecb && !(r.continues && d.primed)) {
      if (EVP_CipherInit_ex2(d.ctx.get(), nullptr, nullptr, r.iv.data(), -1, nullptr) != 1)
        return fail();
    }
    d.primed = false;
    if (mode == CipherMode::xts) {
      // One call per data unit: XTS cannot be split into updates.
      int out_len = 0;
      if (EVP_CipherUpdate(d.ctx.get(), r.out.data(), &out_len, r.in.data(),
                           static_cast<int>(r.in.size())) != 1 ||
          static_cast<std::size_t>(out_len) != r.in.size())
        return fail();
      return ErrorCode::ok;
    }
    for (std::size_t done = 0; done < r.in.size();) {
      const std::size_t n = std::min(kMaxUpdate, r.in.size() - done);
      int out_len = 0;
      if (EVP_CipherUpdate(d.ctx.get(), r.out.data() + done, &out_len, r.in.data() + done,
                           static_cast<int>(n)) != 1 ||
          static_cast<std::size_t>(out_len) != n)
        return fail();
      done += n;
    }
    d.primed = true;
    return ErrorCode::ok;
  }

  ErrorCode fail() noexcept {
    ERR_clear_error();
    return ErrorCode::driver_failure;
  }

  const Algorithm& algorithm_;
  const EVP_CIPHER* cipher_;
  SecretBytes key_;
  Direction encrypt_, decrypt_;
};

}  // namespace

std::unique_ptr<DriverSession> open_cipher_session(const Algorithm& algorithm,
                                                   const EVP_CIPHER* cipher,
                                                   std::span<const std::uint8_t> key) {
  return std::make_unique<SoftCipherSession>(algorithm, cipher, key);
}

}  // namespace cryptoaccel::soft
