// HMAC as an EVP_MAC, for every digest of the algorithm table. libssl MACs
// TLS records through it (EVP_DigestSign with an HMAC key, which dups this
// context per record and sets "tls-data-size" for CBC records).
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cipher_families.hpp"
#include "digest_runner.hpp"
#include "dispatch.hpp"
#include "errors.hpp"
#include "openssl_default.hpp"

namespace cryptoaccel::provider {
namespace {

constexpr std::size_t kTlsHeader = 13;  // sequence number, type, version, length

// The HMAC of the table built on `digest` ("SHA2-256", "sha256", "SHA-1"),
// when some driver of this provider serves it; else null.
const Algorithm* hmac_for_digest(const ProviderContext& pc, std::string_view digest) {
  const Algorithm* d = find_algorithm(digest);
  if (d != nullptr && d->kind == AlgorithmKind::digest)
    for (const Algorithm& a : algorithms())
      if (a.kind == AlgorithmKind::mac && a.digest == d->name && pc.offers(a.id)) return &a;
  return nullptr;
}

struct MacCtxFree {
  void operator()(EVP_MAC_CTX* ctx) const noexcept { EVP_MAC_CTX_free(ctx); }
};
using MacCtxPtr = std::unique_ptr<EVP_MAC_CTX, MacCtxFree>;

// The parameters for OpenSSL's own HMAC: all of them but "properties",
// which name providers of the caller's library context, not of ours.
std::vector<OSSL_PARAM> for_openssl(const OSSL_PARAM params[]) {
  std::vector<OSSL_PARAM> out;
  for (const OSSL_PARAM* p = params; p != nullptr && p->key != nullptr; ++p)
    if (std::string_view(p->key) != OSSL_MAC_PARAM_PROPERTIES) out.push_back(*p);
  out.push_back(OSSL_PARAM_construct_end());
  return out;
}

// Secret bytes of any length (HMAC keys), wiped when replaced or released.
class SecretBytes {
 public:
  SecretBytes() = default;
  SecretBytes(const SecretBytes&) = default;
  SecretBytes& operator=(const SecretBytes&) = delete;
  ~SecretBytes() { wipe(); }
  void assign(Bytes bytes) {
    wipe();
    bytes_.assign(bytes.begin(), bytes.end());
  }
  Bytes span() const noexcept { return bytes_; }

 private:
  void wipe() noexcept {
    if (!bytes_.empty()) secure_wipe(bytes_.data(), bytes_.size());
  }
  std::vector<std::uint8_t> bytes_;
};

class HmacCtx {
 public:
  explicit HmacCtx(ProviderContext* pc) : pc_(pc) {}
  HmacCtx(const HmacCtx& other)
      : pc_(other.pc_),
        hmac_(other.hmac_),
        key_(other.key_),
        has_key_(other.has_key_),
        runner_(other.runner_),
        tls_data_size_(other.tls_data_size_),
        tls_header_(other.tls_header_),
        tls_header_set_(other.tls_header_set_),
        tls_mac_(other.tls_mac_),
        tls_mac_ready_(other.tls_mac_ready_),
        digest_name_(other.digest_name_) {
    if (other.openssl_) {
      openssl_.reset(EVP_MAC_CTX_dup(other.openssl_.get()));
      if (!openssl_) throw DriverFailure("cannot copy OpenSSL's HMAC context");
    }
  }
  ~HmacCtx() { secure_wipe(tls_mac_.data(), tls_mac_.size()); }

  ProviderContext* pc() const noexcept { return pc_; }

  int init(const std::uint8_t* key, std::size_t keylen, const OSSL_PARAM params[]) {
    if (!set_params(params)) return 0;
    if (openssl_) return EVP_MAC_init(openssl_.get(), key, keylen, nullptr);
    if (key != nullptr) {
      if (hmac_ == nullptr) return fail(kReasonNotInitialised, "set the digest before the key");
      set_key({key, keylen});
    }
    if (!runner_) return fail(kReasonNotInitialised, "HMAC needs a digest and a key");
    runner_->restart();
    tls_header_set_ = false;
    tls_mac_ready_ = false;
    return 1;
  }

  int update(const std::uint8_t* in, std::size_t inl) {
    if (openssl_) [[unlikely]] {
      pc_->openssl_default().count("hmac(" + digest_name_ + ")", inl);
      return EVP_MAC_update(openssl_.get(), in, inl);
    }
    if (!runner_) [[unlikely]]
      return fail(kReasonNotInitialised, "HMAC needs a digest and a key");
    if (tls_data_size_ == 0) [[likely]] {
      runner_->update({in, inl});
      return 1;
    }
    return tls_update(in, inl);
  }

  int final(std::uint8_t* out, std::size_t* outl, std::size_t outsize) {
    if (openssl_) return EVP_MAC_final(openssl_.get(), out, outl, outsize);
    if (!runner_) return fail(kReasonNotInitialised, "HMAC needs a digest and a key");
    const std::size_t size = runner_->size();
    if (outsize < size) return fail(kReasonOutputTooSmall, "output buffer too small");
    if (tls_data_size_ != 0) {
      if (!tls_mac_ready_) return fail(kReasonNotInitialised, "no TLS record was MACed");
      std::copy(tls_mac_.begin(), tls_mac_.begin() + static_cast<std::ptrdiff_t>(size), out);
      tls_mac_ready_ = false;
    } else {
      runner_->final({out, size});
    }
    *outl = size;
    return 1;
  }

  int get_params(OSSL_PARAM params[]) const {
    if (openssl_) return EVP_MAC_CTX_get_params(openssl_.get(), params);
    OSSL_PARAM* p;
    if ((p = OSSL_PARAM_locate(params, OSSL_MAC_PARAM_SIZE)) &&
        !OSSL_PARAM_set_size_t(p, hmac_ ? hmac_->output_size : 0))
      return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_MAC_PARAM_BLOCK_SIZE)) &&
        !OSSL_PARAM_set_size_t(p, hmac_ ? hmac_->block_size : 0))
      return 0;
    return 1;
  }

  int set_params(const OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    const OSSL_PARAM* p;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_DIGEST))) {
      if (p->data_type != OSSL_PARAM_UTF8_STRING)
        return fail(kReasonBadParameter, "'digest' must be a string");
      const char* digest = static_cast<const char*>(p->data);
      const Algorithm* hmac = hmac_for_digest(*pc_, digest);
      if (hmac == nullptr) return use_openssl(digest, params);
      openssl_.reset();
      if (hmac != hmac_) {
        hmac_ = hmac;
        runner_.reset();
        if (has_key_) open();
      }
    }
    if (openssl_) return EVP_MAC_CTX_set_params(openssl_.get(), for_openssl(params).data());
    if ((p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_KEY))) {
      if (p->data_type != OSSL_PARAM_OCTET_STRING)
        return fail(kReasonBadParameter, "'key' must be an octet string");
      // As OpenSSL's HMAC: no key without a digest, and a NULL key keeps
      // the key already set (there is none to keep before the first).
      if (hmac_ == nullptr) return fail(kReasonNotInitialised, "set the digest before the key");
      if (p->data == nullptr) {
        if (!has_key_) return fail(kReasonNotInitialised, "a NULL key with no key set before");
        runner_->restart();
      } else {
        set_key({static_cast<const std::uint8_t*>(p->data), p->data_size});
      }
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_TLS_DATA_SIZE))) {
      std::size_t v = 0;
      if (!read_size(p, v)) return 0;
      tls_data_size_ = v;
    }
    // "properties", "digest-noinit" and "digest-oneshot" change nothing
    // here: the digest is always ours and always starts fresh.
    return 1;
  }

 private:
  // OpenSSL's own HMAC serves a digest no driver offers, with every
  // parameter given so far (the key) and those of this call.
  int use_openssl(const char* digest, const OSSL_PARAM params[]) {
    EVP_MAC* mac = EVP_MAC_fetch(pc_->openssl_default().libctx(), "HMAC", "provider=default");
    if (mac == nullptr) return fail(kReasonInternal, "OpenSSL's HMAC is not available");
    openssl_.reset(EVP_MAC_CTX_new(mac));
    EVP_MAC_free(mac);
    if (!openssl_) throw std::bad_alloc();
    digest_name_ = digest;
    runner_.reset();
    hmac_ = nullptr;
    const std::vector<OSSL_PARAM> forwarded = for_openssl(params);
    if (EVP_MAC_CTX_set_params(openssl_.get(), forwarded.data()) != 1) {
      openssl_.reset();
      return 0;
    }
    if (has_key_ && OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_KEY) == nullptr) {
      const Bytes key = key_.span();
      const OSSL_PARAM with_key[] = {
          OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY,
                                            const_cast<std::uint8_t*>(key.data()), key.size()),
          OSSL_PARAM_END};
      if (EVP_MAC_CTX_set_params(openssl_.get(), with_key) != 1) return 0;
    }
    return 1;
  }

  void set_key(Bytes key) {
    key_.assign(key);
    has_key_ = true;
    open();
  }

  void open() {
    const SessionOptions& options = pc_->options(hmac_->id);
    try {
      runner_.emplace(MacSession(hmac_->name, key_.span(), options));
      return;
    } catch (const Error&) {
      if (options.driver.empty()) throw;
    }
    runner_.emplace(MacSession(hmac_->name, key_.span(), pc_->unpinned()));
  }

  // libssl's CBC record MAC: the 13-byte header, then the payload, whose
  // record held `tls_data_size_` bytes before the padding and MAC were
  // removed. Hashing the rest of that span too keeps the work independent
  // of the (secret) padding length, as far as whole blocks go.
  int tls_update(const std::uint8_t* in, std::size_t inl) {
    if (!tls_header_set_) {
      if (inl != kTlsHeader) return fail(kReasonBadParameter, "TLS MAC header must be 13 bytes");
      std::copy(in, in + kTlsHeader, tls_header_.begin());
      tls_header_set_ = true;
      return 1;
    }
    if (inl > tls_data_size_)
      return fail(static_cast<int>(ErrorCode::invalid_length),
                  "TLS record longer than tls-data-size");
    const std::size_t size = runner_->size();
    runner_->restart();
    runner_->update(tls_header_);
    runner_->update({in, inl});
    runner_->final({tls_mac_.data(), size});
    std::array<std::uint8_t, 64> discard{};
    runner_->update({in + inl, tls_data_size_ - inl});
    runner_->final({discard.data(), size});
    tls_mac_ready_ = true;
    tls_header_set_ = false;
    return 1;
  }

  bool read_size(const OSSL_PARAM* p, std::size_t& v) const {
    if (OSSL_PARAM_get_size_t(p, &v)) return true;
    fail(kReasonBadParameter, "parameter must be an integer");
    return false;
  }

  int fail(int reason, const char* what) const {
    CRYPTOACCEL_RAISE(pc_, reason, "cryptoaccel: HMAC: %s", what);
    return 0;
  }

  ProviderContext* pc_;
  const Algorithm* hmac_ = nullptr;
  SecretBytes key_;
  bool has_key_ = false;
  std::optional<DigestRunner> runner_;
  std::size_t tls_data_size_ = 0;
  std::array<std::uint8_t, kTlsHeader> tls_header_{};
  bool tls_header_set_ = false;
  std::array<std::uint8_t, 64> tls_mac_{};
  bool tls_mac_ready_ = false;
  // A digest no driver offers: OpenSSL's own HMAC serves the context.
  MacCtxPtr openssl_;
  std::string digest_name_;
};

HmacCtx* ctx_of(void* vctx) {
  return static_cast<HmacCtx*>(vctx);
}

void* newctx(void* provctx) {
  auto* pc = static_cast<ProviderContext*>(provctx);
  return guarded(pc, static_cast<void*>(nullptr),
                 [&]() -> void* { return std::make_unique<HmacCtx>(pc).release(); });
}

void freectx(void* vctx) {
  std::unique_ptr<HmacCtx> owned(ctx_of(vctx));
}

void* dupctx(void* vctx) {
  HmacCtx* ctx = ctx_of(vctx);
  return guarded(ctx->pc(), static_cast<void*>(nullptr),
                 [&]() -> void* { return std::make_unique<HmacCtx>(*ctx).release(); });
}

int init(void* vctx, const unsigned char* key, size_t keylen, const OSSL_PARAM params[]) {
  HmacCtx* ctx = ctx_of(vctx);
  return guarded(ctx->pc(), 0, [&] { return ctx->init(key, keylen, params); });
}

int update(void* vctx, const unsigned char* in, size_t inl) {
  HmacCtx* ctx = ctx_of(vctx);
  return guarded(ctx->pc(), 0, [&] { return ctx->update(in, inl); });
}

int final(void* vctx, unsigned char* out, size_t* outl, size_t outsize) {
  HmacCtx* ctx = ctx_of(vctx);
  return guarded(ctx->pc(), 0, [&] { return ctx->final(out, outl, outsize); });
}

int get_ctx_params(void* vctx, OSSL_PARAM params[]) {
  HmacCtx* ctx = ctx_of(vctx);
  return guarded(ctx->pc(), 0, [&] { return ctx->get_params(params); });
}

int set_ctx_params(void* vctx, const OSSL_PARAM params[]) {
  HmacCtx* ctx = ctx_of(vctx);
  return guarded(ctx->pc(), 0, [&] { return ctx->set_params(params); });
}

const OSSL_PARAM* gettable_ctx_params(void*, void*) {
  static const OSSL_PARAM kParams[] = {OSSL_PARAM_size_t(OSSL_MAC_PARAM_SIZE, nullptr),
                                       OSSL_PARAM_size_t(OSSL_MAC_PARAM_BLOCK_SIZE, nullptr),
                                       OSSL_PARAM_END};
  return kParams;
}

const OSSL_PARAM* settable_ctx_params(void*, void*) {
  static const OSSL_PARAM kParams[] = {
      OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST, nullptr, 0),
      OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_PROPERTIES, nullptr, 0),
      OSSL_PARAM_octet_string(OSSL_MAC_PARAM_KEY, nullptr, 0),
      OSSL_PARAM_int(OSSL_MAC_PARAM_DIGEST_NOINIT, nullptr),
      OSSL_PARAM_int(OSSL_MAC_PARAM_DIGEST_ONESHOT, nullptr),
      OSSL_PARAM_size_t(OSSL_MAC_PARAM_TLS_DATA_SIZE, nullptr),
      OSSL_PARAM_END};
  return kParams;
}

const OSSL_DISPATCH kFunctions[] = {entry(OSSL_FUNC_MAC_NEWCTX, &newctx),
                                    entry(OSSL_FUNC_MAC_DUPCTX, &dupctx),
                                    entry(OSSL_FUNC_MAC_FREECTX, &freectx),
                                    entry(OSSL_FUNC_MAC_INIT, &init),
                                    entry(OSSL_FUNC_MAC_UPDATE, &update),
                                    entry(OSSL_FUNC_MAC_FINAL, &final),
                                    entry(OSSL_FUNC_MAC_GET_CTX_PARAMS, &get_ctx_params),
                                    entry(OSSL_FUNC_MAC_SET_CTX_PARAMS, &set_ctx_params),
                                    entry(OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS, &gettable_ctx_params),
                                    entry(OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS, &settable_ctx_params),
                                    kEnd};

}  // namespace

const OSSL_DISPATCH* hmac_functions() {
  return kFunctions;
}

}  // namespace cryptoaccel::provider
