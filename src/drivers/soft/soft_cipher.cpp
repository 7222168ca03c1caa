// ECB, CBC, CTR, XTS and DES through EVP: one keyed context per direction,
// made once per session; a request only sets its IV.
#include <openssl/core_names.h>
#include <openssl/err.h>

#include <array>
#include <cstring>

#include "soft_driver.hpp"

namespace cryptoaccel::soft {
namespace {

class SoftCipherSession final : public DriverSession {
 public:
  SoftCipherSession(const Algorithm& algorithm, const EVP_CIPHER* cipher,
                    std::span<const std::uint8_t> key)
      : algorithm_(algorithm), cipher_(cipher), key_(key.begin(), key.end()) {}

  ~SoftCipherSession() override { OPENSSL_cleanse(key_.data(), key_.size()); }

  std::size_t process(std::span<Request> batch) noexcept override {
    for (Request& r : batch) r.status = crypt(r);
    return batch.size();
  }

 private:
  // What a direction's context holds: the key schedule and, for streaming
  // CBC/CTR, the IV it will continue from. When a request's IV equals that,
  // the (costly) re-initialisation is skipped.
  struct Direction {
    CipherCtxPtr ctx;
    std::array<std::uint8_t, 16> next_iv{};
    bool chained = false;
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

  ErrorCode crypt(Request& r) noexcept {
    const bool encrypt = r.op == Operation::encrypt;
    if (r.op == Operation::digest) return ErrorCode::unsupported;
    Direction& d = encrypt ? encrypt_ : decrypt_;
    if (!ready(d, encrypt)) return fail();
    const CipherMode mode = algorithm_.mode;
    const std::size_t iv_len = r.iv.size();
    const bool continues = d.chained && iv_len == algorithm_.iv_size &&
                           std::memcmp(d.next_iv.data(), r.iv.data(), iv_len) == 0;
    if (mode != CipherMode::ecb && !continues) {
      if (EVP_CipherInit_ex2(d.ctx.get(), nullptr, nullptr, r.iv.data(), -1, nullptr) != 1)
        return fail();
    }
    d.chained = false;

    // The next CBC IV is the last ciphertext block: taken from the input
    // before an in-place decryption overwrites it.
    const std::size_t block = algorithm_.block_size;
    std::array<std::uint8_t, 16> next{};
    if (mode == CipherMode::cbc && !encrypt && r.in.size() >= block)
      std::memcpy(next.data(), r.in.data() + r.in.size() - block, block);

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

    if (mode == CipherMode::cbc && r.in.size() >= block) {
      if (encrypt) std::memcpy(next.data(), r.out.data() + r.in.size() - block, block);
      std::memcpy(d.next_iv.data(), next.data(), block);
      d.chained = true;
    } else if (mode == CipherMode::ctr && r.in.size() % 16 == 0) {
      std::memcpy(d.next_iv.data(), r.iv.data(), 16);
      // Big-endian 128-bit increment by the number of blocks used.
      std::uint64_t carry = r.in.size() / 16;
      for (std::size_t i = 16; i-- > 0 && carry != 0;) {
        carry += d.next_iv[i];
        d.next_iv[i] = static_cast<std::uint8_t>(carry);
        carry >>= 8;
      }
      d.chained = true;
    }
    return ErrorCode::ok;
  }

  ErrorCode fail() noexcept {
    ERR_clear_error();
    return ErrorCode::driver_failure;
  }

  const Algorithm& algorithm_;
  const EVP_CIPHER* cipher_;
  std::vector<std::uint8_t> key_;  // wiped in the destructor
  Direction encrypt_, decrypt_;
};

}  // namespace

std::unique_ptr<DriverSession> open_cipher_session(const Algorithm& algorithm,
                                                   const EVP_CIPHER* cipher,
                                                   std::span<const std::uint8_t> key) {
  return std::make_unique<SoftCipherSession>(algorithm, cipher, key);
}

}  // namespace cryptoaccel::soft
