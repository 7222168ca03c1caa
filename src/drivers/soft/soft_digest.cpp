// Digests and HMAC through EVP: one reusable context per session for
// one-shot requests, and a fresh one per update/final stream.
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>

#include <vector>

#include "soft_driver.hpp"

namespace cryptoaccel::soft {
namespace {

ErrorCode failed() noexcept {
  ERR_clear_error();
  return ErrorCode::driver_failure;
}

class SoftDigestStream final : public DigestStream {
 public:
  explicit SoftDigestStream(MdCtxPtr ctx) : ctx_(std::move(ctx)) {}
  ErrorCode update(std::span<const std::uint8_t> in) noexcept override {
    return EVP_DigestUpdate(ctx_.get(), in.data(), in.size()) == 1 ? ErrorCode::ok : failed();
  }
  ErrorCode final(std::span<std::uint8_t> out) noexcept override {
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), out.data(), &len) != 1 || len != out.size()) return failed();
    return ErrorCode::ok;
  }
  std::unique_ptr<DigestStream> clone() const override {
    MdCtxPtr copy(EVP_MD_CTX_new());
    if (!copy || EVP_MD_CTX_copy_ex(copy.get(), ctx_.get()) != 1) {
      ERR_clear_error();
      throw DriverFailure("soft: cannot copy a digest stream");
    }
    return std::make_unique<SoftDigestStream>(std::move(copy));
  }

 private:
  MdCtxPtr ctx_;
};

class SoftDigestSession final : public DriverSession {
 public:
  explicit SoftDigestSession(const EVP_MD* md) : md_(md), ctx_(EVP_MD_CTX_new()) {
    if (!ctx_) throw DriverFailure("soft: EVP_MD_CTX_new failed");
  }

  std::size_t process(std::span<Request> batch) noexcept override {
    for (Request& r : batch) {
      unsigned int len = 0;
      if (r.op != Operation::digest) {
        r.status = ErrorCode::unsupported;
      } else if (EVP_DigestInit_ex2(ctx_.get(), md_, nullptr) != 1 ||
                 EVP_DigestUpdate(ctx_.get(), r.in.data(), r.in.size()) != 1 ||
                 EVP_DigestFinal_ex(ctx_.get(), r.out.data(), &len) != 1 || len != r.out.size()) {
        r.status = failed();
      } else {
        r.status = ErrorCode::ok;
      }
    }
    return batch.size();
  }

  std::unique_ptr<DigestStream> open_stream() override {
    MdCtxPtr ctx(EVP_MD_CTX_new());
    if (!ctx || EVP_DigestInit_ex2(ctx.get(), md_, nullptr) != 1) {
      ERR_clear_error();
      throw DriverFailure("soft: cannot start a digest stream");
    }
    return std::make_unique<SoftDigestStream>(std::move(ctx));
  }

 private:
  const EVP_MD* md_;
  MdCtxPtr ctx_;
};

class SoftMacStream final : public DigestStream {
 public:
  explicit SoftMacStream(MacCtxPtr ctx) : ctx_(std::move(ctx)) {}
  ErrorCode update(std::span<const std::uint8_t> in) noexcept override {
    return EVP_MAC_update(ctx_.get(), in.data(), in.size()) == 1 ? ErrorCode::ok : failed();
  }
  ErrorCode final(std::span<std::uint8_t> out) noexcept override {
    std::size_t len = 0;
    if (EVP_MAC_final(ctx_.get(), out.data(), &len, out.size()) != 1 || len != out.size())
      return failed();
    return ErrorCode::ok;
  }
  std::unique_ptr<DigestStream> clone() const override {
    MacCtxPtr copy(EVP_MAC_CTX_dup(ctx_.get()));
    if (!copy) {
      ERR_clear_error();
      throw DriverFailure("soft: cannot copy an HMAC stream");
    }
    return std::make_unique<SoftMacStream>(std::move(copy));
  }

 private:
  MacCtxPtr ctx_;
};

// The keyed context is made once; every request re-initialises it without a
// key, which keeps the key schedule (HMAC's inner and outer pads).
class SoftHmacSession final : public DriverSession {
 public:
  SoftHmacSession(EVP_MAC* mac, const EVP_MD* md, std::span<const std::uint8_t> key)
      : ctx_(EVP_MAC_CTX_new(mac)) {
    // HMAC_Init_ex reads a null key as "keep the old one": give it a real
    // pointer even for an empty key.
    static const std::uint8_t kEmpty = 0;
    const std::uint8_t* key_data = key.empty() ? &kEmpty : key.data();
    const OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
                                         const_cast<char*>(EVP_MD_get0_name(md)), 0),
        OSSL_PARAM_END};
    if (!ctx_ || EVP_MAC_init(ctx_.get(), key_data, key.size(), params) != 1) {
      ERR_clear_error();
      throw DriverFailure("soft: cannot key HMAC");
    }
  }

  std::size_t process(std::span<Request> batch) noexcept override {
    for (Request& r : batch) {
      std::size_t len = 0;
      if (r.op != Operation::digest) {
        r.status = ErrorCode::unsupported;
      } else if (EVP_MAC_init(ctx_.get(), nullptr, 0, nullptr) != 1 ||
                 EVP_MAC_update(ctx_.get(), r.in.data(), r.in.size()) != 1 ||
                 EVP_MAC_final(ctx_.get(), r.out.data(), &len, r.out.size()) != 1 ||
                 len != r.out.size()) {
        r.status = failed();
      } else {
        r.status = ErrorCode::ok;
      }
    }
    return batch.size();
  }

  std::unique_ptr<DigestStream> open_stream() override {
    MacCtxPtr ctx(EVP_MAC_CTX_dup(ctx_.get()));
    if (!ctx || EVP_MAC_init(ctx.get(), nullptr, 0, nullptr) != 1) {
      ERR_clear_error();
      throw DriverFailure("soft: cannot start an HMAC stream");
    }
    return std::make_unique<SoftMacStream>(std::move(ctx));
  }

 private:
  MacCtxPtr ctx_;  // EVP_MAC_CTX_free wipes the key material
};

}  // namespace

std::unique_ptr<DriverSession> open_digest_session(const EVP_MD* md) {
  return std::make_unique<SoftDigestSession>(md);
}

std::unique_ptr<DriverSession> open_hmac_session(EVP_MAC* mac, const EVP_MD* md,
                                                 std::span<const std::uint8_t> key) {
  return std::make_unique<SoftHmacSession>(mac, md, key);
}

}  // namespace cryptoaccel::soft
