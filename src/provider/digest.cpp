// Digests (MD5, SHA-1, SHA-2) with dupctx: libssl copies its transcript
// hashes mid-handshake.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

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

template <AlgorithmId Id>
struct DigestTable {
  static void* newctx(void* provctx) {
    auto* pc = static_cast<ProviderContext*>(provctx);
    return guarded(pc, static_cast<void*>(nullptr), [&]() -> void* {
      return std::make_unique<DigestCtx>(pc, algorithm(Id)).release();
    });
  }
  static int get_params(OSSL_PARAM params[]) { return digest_get_params(algorithm(Id), params); }
  static inline const OSSL_DISPATCH functions[] = {
      entry(OSSL_FUNC_DIGEST_NEWCTX, &newctx),
      entry(OSSL_FUNC_DIGEST_INIT, &init),
      entry(OSSL_FUNC_DIGEST_UPDATE, &update),
      entry(OSSL_FUNC_DIGEST_FINAL, &final),
      entry(OSSL_FUNC_DIGEST_FREECTX, &freectx),
      entry(OSSL_FUNC_DIGEST_DUPCTX, &dupctx),
      entry(OSSL_FUNC_DIGEST_GET_PARAMS, &get_params),
      entry(OSSL_FUNC_DIGEST_GETTABLE_PARAMS, &gettable_params),
      kEnd};
};

}  // namespace

const OSSL_DISPATCH* digest_functions(AlgorithmId id) {
  return table_of<DigestTable>(id);
}

}  // namespace cryptoaccel::provider
