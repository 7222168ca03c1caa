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
#include "errors.hpp"
#include "function_tables.hpp"
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

// The HMAC context keeps OpenSSL's contract (hmac_prov.c over HMAC_CTX): a
// "digest" parameter only selects the digest; a key (parameter or init)
// keys the HMAC with the selected digest; a NULL key restarts the HMAC
// keyed before, when the digest is still that one; "size" is 0 until a key
// was taken. Digests of the table run on the dispatcher's drivers, others
// on OpenSSL's own HMAC.
class HmacCtx {
 public:
  explicit HmacCtx(ProviderContext* pc) : pc_(pc) {}
  HmacCtx(const HmacCtx& other)
      : pc_(other.pc_),
        selected_(other.selected_),
        selected_other_(other.selected_other_),
        selected_block_size_(other.selected_block_size_),
        keyed_(other.keyed_),
        keyed_other_(other.keyed_other_),
        usage_label_(other.usage_label_),
        key_(other.key_),
        runner_(other.runner_),
        tls_data_size_(other.tls_data_size_),
        tls_header_(other.tls_header_),
        tls_header_set_(other.tls_header_set_),
        tls_mac_(other.tls_mac_),
        tls_mac_ready_(other.tls_mac_ready_) {
    if (other.openssl_) {
      openssl_.reset(EVP_MAC_CTX_dup(other.openssl_.get()));
      if (!openssl_) throw DriverFailure("cannot copy OpenSSL's HMAC context");
    }
  }
  ~HmacCtx() { secure_wipe(tls_mac_.data(), tls_mac_.size()); }

  ProviderContext* pc() const noexcept { return pc_; }

  int init(const std::uint8_t* key, std::size_t keylen, const OSSL_PARAM params[]) {
    if (!set_params(params)) return 0;
    tls_header_set_ = false;
    tls_mac_ready_ = false;
    if (key != nullptr) return set_key({key, keylen});
    return restart();
  }

  int update(const std::uint8_t* in, std::size_t inl) {
    if (openssl_) [[unlikely]] {
      pc_->openssl_default().count(usage_label_, inl);
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
    OSSL_PARAM* p;
    if ((p = OSSL_PARAM_locate(params, OSSL_MAC_PARAM_SIZE)) && !OSSL_PARAM_set_size_t(p, size()))
      return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_MAC_PARAM_BLOCK_SIZE)) &&
        !OSSL_PARAM_set_int(p, static_cast<int>(selected_block_size_)))
      return 0;
    return 1;
  }

  int set_params(const OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    const OSSL_PARAM* p;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_DIGEST)) && !select_digest(p)) return 0;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_KEY))) {
      if (p->data_type != OSSL_PARAM_OCTET_STRING)
        return fail(kReasonBadParameter, "'key' must be an octet string");
      if (p->data == nullptr) {
        // A NULL key keeps the keyed HMAC, for the same digest only.
        key_.assign({});
        if (tls_data_size_ == 0 && !selected()) return 1;
        if (!same_digest_keyed()) return fail(kReasonNotInitialised, "a NULL key with no key set");
        if (!restart()) return 0;
      } else if (!set_key({static_cast<const std::uint8_t*>(p->data), p->data_size})) {
        return 0;
      }
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_TLS_DATA_SIZE))) {
      std::size_t v = 0;
      if (!read_size(p, v)) return 0;
      tls_data_size_ = v;
    }
    // "properties", "digest-noinit" and "digest-oneshot" change nothing
    // here: the digest is always fetched by this provider and starts fresh.
    return 1;
  }

 private:
  bool selected() const noexcept { return selected_ != nullptr || !selected_other_.empty(); }
  bool same_digest_keyed() const {
    return (runner_ && selected_ == keyed_) ||
           (openssl_ && selected_ == nullptr && selected_other_ == keyed_other_);
  }
  std::size_t size() const {
    if (runner_) return runner_->size();
    if (openssl_) return EVP_MAC_CTX_get_mac_size(openssl_.get());
    return 0;
  }

  // "digest": a digest of the table, or one OpenSSL's default provider has.
  bool select_digest(const OSSL_PARAM* p) {
    if (p->data_type != OSSL_PARAM_UTF8_STRING || p->data == nullptr)
      return fail(kReasonBadParameter, "'digest' must be a string") != 0;
    const char* name = static_cast<const char*>(p->data);
    if (const Algorithm* hmac = hmac_for_digest(*pc_, name)) {
      selected_ = hmac;
      selected_other_.clear();
      selected_block_size_ = hmac->block_size;
      return true;
    }
    EVP_MD* md = EVP_MD_fetch(pc_->openssl_default().libctx(), name, "provider=default");
    if (md == nullptr) {
      // OpenSSL forgets the digest selected before.
      selected_ = nullptr;
      selected_other_.clear();
      selected_block_size_ = 0;
      return fail(kReasonBadParameter, "no such digest") != 0;
    }
    selected_block_size_ = static_cast<std::size_t>(EVP_MD_get_block_size(md));
    EVP_MD_free(md);
    selected_ = nullptr;
    selected_other_ = name;
    return true;
  }

  // Keys the HMAC with the selected digest or, with none selected, the one
  // keyed before (as HMAC_Init_ex with no digest).
  int set_key(Bytes key) {
    const Algorithm* table = selected_;
    std::string other = selected_other_;
    if (!selected()) {
      if (!runner_ && !openssl_)
        return fail(kReasonNotInitialised, "set the digest before the key");
      table = runner_ ? keyed_ : nullptr;
      other = runner_ ? std::string() : keyed_other_;
    }
    key_.assign(key);
    if (table != nullptr) {
      open(*table);
      openssl_.reset();
      keyed_ = table;
      return 1;
    }
    // OpenSSL's own HMAC serves a digest no driver offers.
    EVP_MAC* mac = EVP_MAC_fetch(pc_->openssl_default().libctx(), "HMAC", "provider=default");
    if (mac == nullptr) return fail(kReasonInternal, "OpenSSL's HMAC is not available");
    MacCtxPtr ctx(EVP_MAC_CTX_new(mac));
    EVP_MAC_free(mac);
    if (!ctx) throw std::bad_alloc();
    const OSSL_PARAM with_key[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, other.data(), 0),
        OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, const_cast<std::uint8_t*>(key.data()),
                                          key.size()),
        OSSL_PARAM_END};
    if (EVP_MAC_CTX_set_params(ctx.get(), with_key) != 1) return 0;
    openssl_ = std::move(ctx);
    runner_.reset();
    keyed_other_ = other;
    usage_label_ = "hmac(" + other + ")";
    return 1;
  }

  // Restarts the keyed HMAC (OpenSSL's HMAC_Init_ex with no key).
  int restart() {
    if (openssl_) return EVP_MAC_init(openssl_.get(), nullptr, 0, nullptr);
    if (!runner_) return fail(kReasonNotInitialised, "HMAC needs a digest and a key");
    runner_->restart();
    return 1;
  }

  void open(const Algorithm& hmac) {
    runner_.emplace(MacSession(hmac.name, key_.span(), pc_->session_options()));
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
  const Algorithm* selected_ = nullptr;  // the "digest" parameter, from the table
  std::string selected_other_;           // ... or another OpenSSL digest
  std::size_t selected_block_size_ = 0;
  const Algorithm* keyed_ = nullptr;  // what runner_ was keyed with
  std::string keyed_other_;           // what openssl_ was keyed with
  std::string usage_label_;           // "hmac(DIGEST)", as the stats show it
  SecretBytes key_;
  std::optional<DigestRunner> runner_;
  std::size_t tls_data_size_ = 0;
  std::array<std::uint8_t, kTlsHeader> tls_header_{};
  bool tls_header_set_ = false;
  std::array<std::uint8_t, 64> tls_mac_{};
  bool tls_mac_ready_ = false;
  MacCtxPtr openssl_;  // a digest no driver offers: OpenSSL's own HMAC
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
