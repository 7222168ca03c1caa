// Digests (MD5, SHA-1, SHA-2) with dupctx: libssl copies its transcript
// hashes mid-handshake.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <array>
#include <memory>
#include <optional>

#include "cipher_families.hpp"
#include "digest_runner.hpp"
#include "errors.hpp"
#include "function_tables.hpp"

namespace cryptoaccel::provider {
namespace {

DigestSession open_digest(ProviderContext& pc, const Algorithm& a) {
  return DigestSession(a.name, pc.session_options());
}

class DigestCtx {
 public:
  DigestCtx(ProviderContext* pc, const Algorithm& a) : pc_(pc), runner_(open_digest(*pc, a)) {}
  DigestCtx(const DigestCtx&) = default;

  ProviderContext* pc() const noexcept { return pc_; }
  DigestRunner& runner() noexcept { return runner_; }

  // SHA-1's "ssl3-ms" (SSL 3.0's certificate verify, which libssl still
  // computes for an SSLv3 peer): the message so far is closed with the
  // master secret and pad 1 into the inner hash, and the context starts the
  // outer one, master secret, pad 2 and that inner hash, which final()
  // then ends. As OpenSSL's sha1 does, the secret must be 48 bytes.
  bool ssl3_master_secret(Bytes secret) {
    constexpr std::size_t kSecret = 48, kPad = 40, kSha1 = 20;
    if (secret.size() != kSecret || runner_.size() != kSha1) return false;
    std::array<std::uint8_t, kPad> pad{};
    std::array<std::uint8_t, kSha1> inner{};
    pad.fill(0x36);
    runner_.update(secret);
    runner_.update(pad);
    runner_.final(inner);
    pad.fill(0x5c);
    runner_.update(secret);
    runner_.update(pad);
    runner_.update(inner);
    secure_wipe(inner.data(), inner.size());
    return true;
  }

 private:
  ProviderContext* pc_;
  DigestRunner runner_;
};

DigestCtx* ctx_of(void* vctx) {
  return static_cast<DigestCtx*>(vctx);
}

void freectx(void* vctx) {
  std::unique_ptr<DigestCtx> owned(ctx_of(vctx));
}

void* dupctx(void* vctx) {
  DigestCtx* ctx = ctx_of(vctx);
  return guarded(ctx->pc(), static_cast<void*>(nullptr),
                 [&]() -> void* { return std::make_unique<DigestCtx>(*ctx).release(); });
}

int init(void* vctx, const OSSL_PARAM[]) {
  ctx_of(vctx)->runner().restart();
  return 1;
}

int update(void* vctx, const unsigned char* in, size_t inl) {
  DigestCtx* ctx = ctx_of(vctx);
  return guarded(ctx->pc(), 0, [&] {
    ctx->runner().update({in, inl});
    return 1;
  });
}

int final(void* vctx, unsigned char* out, size_t* outl, size_t outsz) {
  DigestCtx* ctx = ctx_of(vctx);
  return guarded(ctx->pc(), 0, [&] {
    const std::size_t size = ctx->runner().size();
    if (outsz < size) {
      CRYPTOACCEL_RAISE(ctx->pc(), kReasonOutputTooSmall,
                        "cryptoaccel: digest of %zu bytes, buffer of %zu", size, outsz);
      return 0;
    }
    ctx->runner().final({out, size});
    *outl = size;
    return 1;
  });
}

const OSSL_PARAM* gettable_params(void*) {
  static const OSSL_PARAM kParams[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_BLOCK_SIZE, nullptr),
                                       OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_SIZE, nullptr),
                                       OSSL_PARAM_int(OSSL_DIGEST_PARAM_XOF, nullptr),
                                       OSSL_PARAM_int(OSSL_DIGEST_PARAM_ALGID_ABSENT, nullptr),
                                       OSSL_PARAM_END};
  return kParams;
}

int digest_get_params(const Algorithm& a, OSSL_PARAM params[]) {
  // SHA-1 and SHA-2 signatures omit the AlgorithmIdentifier parameters;
  // MD5's and RIPEMD-160's carry a NULL (as OpenSSL's default provider
  // declares: flags 0 in md5_prov.c and ripemd_prov.c).
  const int algid_absent = a.id == AlgorithmId::md5 || a.id == AlgorithmId::ripemd160 ? 0 : 1;
  OSSL_PARAM* p;
  if ((p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_BLOCK_SIZE)) &&
      !OSSL_PARAM_set_size_t(p, a.block_size))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_SIZE)) &&
      !OSSL_PARAM_set_size_t(p, a.output_size))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_XOF)) && !OSSL_PARAM_set_int(p, 0)) return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_ALGID_ABSENT)) &&
      !OSSL_PARAM_set_int(p, algid_absent))
    return 0;
  return 1;
}

const OSSL_PARAM* sha1_settable_ctx_params(void*, void*) {
  static const OSSL_PARAM kParams[] = {
      OSSL_PARAM_octet_string(OSSL_DIGEST_PARAM_SSL3_MS, nullptr, 0), OSSL_PARAM_END};
  return kParams;
}

int sha1_set_ctx_params(void* vctx, const OSSL_PARAM params[]) {
  DigestCtx* ctx = ctx_of(vctx);
  const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, OSSL_DIGEST_PARAM_SSL3_MS);
  if (p == nullptr || p->data_type != OSSL_PARAM_OCTET_STRING) return 1;
  return guarded(ctx->pc(), 0, [&] {
    const auto* secret = static_cast<const std::uint8_t*>(p->data);
    return secret != nullptr && ctx->ssl3_master_secret({secret, p->data_size}) ? 1 : 0;
  });
}

template <AlgorithmId Id>
struct DigestTable {
  static void* newctx(void* provctx) {
    auto* pc = static_cast<ProviderContext*>(provctx);
    return guarded(pc, static_cast<void*>(nullptr), [&]() -> void* {
      return std::make_unique<DigestCtx>(pc, algorithm(Id)).release();
    });
  }
  static int get_params(OSSL_PARAM params[]) { return digest_get_params(algorithm(Id), params); }
  static constexpr bool kSsl3 = Id == AlgorithmId::sha1;
  static inline const OSSL_DISPATCH functions[] = {
      entry(OSSL_FUNC_DIGEST_NEWCTX, &newctx),
      entry(OSSL_FUNC_DIGEST_INIT, &init),
      entry(OSSL_FUNC_DIGEST_UPDATE, &update),
      entry(OSSL_FUNC_DIGEST_FINAL, &final),
      entry(OSSL_FUNC_DIGEST_FREECTX, &freectx),
      entry(OSSL_FUNC_DIGEST_DUPCTX, &dupctx),
      entry(OSSL_FUNC_DIGEST_GET_PARAMS, &get_params),
      entry(OSSL_FUNC_DIGEST_GETTABLE_PARAMS, &gettable_params),
      // SHA-1 also takes "ssl3-ms", as OpenSSL's own does; the table of
      // every other digest ends before these.
      kSsl3 ? entry(OSSL_FUNC_DIGEST_SET_CTX_PARAMS, &sha1_set_ctx_params) : kEnd,
      kSsl3 ? entry(OSSL_FUNC_DIGEST_SETTABLE_CTX_PARAMS, &sha1_settable_ctx_params) : kEnd,
      kEnd,
  };
};

}  // namespace

const OSSL_DISPATCH* digest_functions(AlgorithmId id) {
  return table_of<DigestTable>(id);
}

}  // namespace cryptoaccel::provider
