// AES-GCM and ChaCha20-Poly1305 through EVP. The tag comparison on open is
// OpenSSL's own, which is constant time.
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>

#include <vector>

#include "cryptoaccel/driver/vector_state.hpp"
#include "soft_driver.hpp"

namespace cryptoaccel::soft {
namespace {

class SoftAeadSession final : public DriverSession {
 public:
  SoftAeadSession(const Algorithm& algorithm, const EVP_CIPHER* cipher,
                  std::span<const std::uint8_t> key)
      : algorithm_(algorithm), cipher_(cipher), key_(key) {}

  std::size_t process(std::span<Request> batch) noexcept override {
    for (Request& r : batch) {
      r.status = run(r);
      // A failed open leaves OpenSSL's error queue set; clearing it costs
      // more than a small seal, so only after a failure.
      if (r.status != ErrorCode::ok) ERR_clear_error();
    }
    // OpenSSL 3.0's ChaCha20-Poly1305 leaves the AVX upper state in use,
    // which slows the caller's SSE code after it (vector_state.hpp).
    clear_upper_vector_state();
    return batch.size();
  }

 private:
  struct Direction {
    CipherCtxPtr ctx;
    std::size_t iv_len = 0;  // the nonce length the context is set up for
  };

  ErrorCode run(Request& r) noexcept {
    if (r.op == Operation::digest) return ErrorCode::unsupported;
    const bool encrypt = r.op == Operation::encrypt;
    Direction& d = encrypt ? encrypt_ : decrypt_;
    if (!d.ctx) {
      d.ctx.reset(EVP_CIPHER_CTX_new());
      if (!d.ctx || EVP_CipherInit_ex2(d.ctx.get(), cipher_, key_.data(), nullptr, encrypt ? 1 : 0,
                                       nullptr) != 1) {
        d.ctx.reset();
        return ErrorCode::driver_failure;
      }
      d.iv_len = algorithm_.iv_size;
    }
    EVP_CIPHER_CTX* ctx = d.ctx.get();
    if (r.iv.size() != d.iv_len) {
      std::size_t iv_len = r.iv.size();
      const OSSL_PARAM params[] = {
          OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &iv_len), OSSL_PARAM_END};
      if (EVP_CIPHER_CTX_set_params(ctx, params) != 1) return ErrorCode::invalid_iv_length;
      d.iv_len = iv_len;
    }
    if (EVP_CipherInit_ex2(ctx, nullptr, nullptr, r.iv.data(), -1, nullptr) != 1)
      return ErrorCode::driver_failure;
    int out_len = 0;
    if (!r.aad.empty() &&
        EVP_CipherUpdate(ctx, nullptr, &out_len, r.aad.data(), static_cast<int>(r.aad.size())) != 1)
      return ErrorCode::driver_failure;
    for (std::size_t done = 0; done < r.in.size();) {
      const std::size_t n = std::min(kMaxUpdate, r.in.size() - done);
      if (EVP_CipherUpdate(ctx, r.out.data() + done, &out_len, r.in.data() + done,
                           static_cast<int>(n)) != 1 ||
          static_cast<std::size_t>(out_len) != n)
        return ErrorCode::driver_failure;
      done += n;
    }
    if (!encrypt) {
      const OSSL_PARAM params[] = {
          OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, r.tag.data(), r.tag.size()),
          OSSL_PARAM_END};
      if (EVP_CIPHER_CTX_set_params(ctx, params) != 1) return ErrorCode::invalid_tag_length;
    }
    // Nothing is buffered for these stream modes: final writes no bytes.
    std::uint8_t unused[16];
    if (EVP_CipherFinal_ex(ctx, unused, &out_len) != 1)
      return encrypt ? ErrorCode::driver_failure : ErrorCode::authentication_failed;
    if (encrypt) {
      OSSL_PARAM params[] = {
          OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, r.tag.data(), r.tag.size()),
          OSSL_PARAM_END};
      if (EVP_CIPHER_CTX_get_params(ctx, params) != 1) return ErrorCode::driver_failure;
    }
    return ErrorCode::ok;
  }

  const Algorithm& algorithm_;
  const EVP_CIPHER* cipher_;
  SecretBytes key_;
  Direction encrypt_, decrypt_;
};

}  // namespace

std::unique_ptr<DriverSession> open_aead_session(const Algorithm& algorithm,
                                                 const EVP_CIPHER* cipher,
                                                 std::span<const std::uint8_t> key) {
  return std::make_unique<SoftAeadSession>(algorithm, cipher, key);
}

}  // namespace cryptoaccel::soft
