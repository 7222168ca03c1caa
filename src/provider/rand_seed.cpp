// CRYPTOACCEL-SEED: an OSSL_OP_RAND seed source for OpenSSL's
// `[random] seed = CRYPTOACCEL-SEED` (docs/rng.md). OpenSSL's primary DRBG
// takes its entropy from here through get_seed; the bytes come from the
// provider's SeedSource (the best hardware source by default) through the
// SP 800-90B health tests. A failing source fails the request with the
// reason on the error queue: never a partial or substitute seed.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <new>

#include "errors.hpp"
#include "function_tables.hpp"
#include "provider_context.hpp"
#include "rand_seed.hpp"

namespace cryptoaccel::provider {
namespace {

// A seed source gives as many bits as asked (SeedSource credits the claimed
// entropy per byte), so its strength is no cap on the DRBG above it;
// OpenSSL's own SEED-SRC says 1024 too. The DRBG refuses a parent weaker
// than itself (256).
constexpr unsigned kStrength = 1024;
// The largest EVP_RAND_generate() chunk: OpenSSL splits bigger requests.
constexpr std::size_t kMaxRequest = 4096;

struct SeedContext {
  ProviderContext* provider;
  std::atomic<int> state{EVP_RAND_STATE_UNINITIALISED};
  // Created by enable_locking: OpenSSL enables it before using us as the
  // parent of a DRBG that threads share, then brackets every call with
  // lock/unlock. The source itself has its own lock (SeedSource).
  std::unique_ptr<std::mutex> lock;
};

SeedContext* seed_of(void* vctx) {
  return static_cast<SeedContext*>(vctx);
}

void* newctx(void* provctx, void* parent, const OSSL_DISPATCH*) {
  auto* pc = static_cast<ProviderContext*>(provctx);
  if (parent != nullptr) {
    // A seed source is the root of OpenSSL's DRBG chain: its entropy comes
    // from the hardware, never from another DRBG.
    CRYPTOACCEL_RAISE(pc, kReasonBadParameter,
                      "cryptoaccel: CRYPTOACCEL-SEED is a seed source and takes no parent");
    return nullptr;
  }
  auto* ctx = new (std::nothrow) SeedContext{.provider = pc};
  if (ctx == nullptr) CRYPTOACCEL_RAISE(pc, kReasonOutOfMemory, "cryptoaccel: out of memory");
  return ctx;
}

void freectx(void* vctx) {
  // Only our own state: at exit OpenSSL may free this after the provider's
  // teardown, so the provider context is not touched here.
  delete seed_of(vctx);
}

int instantiate(void* vctx, unsigned, int, const unsigned char*, std::size_t, const OSSL_PARAM[]) {
  // The source opens on first use, not here: a failure here would make
  // OpenSSL drop the configured seed source silently and seed from the
  // operating system instead (rand_lib.c), hiding the fault.
  seed_of(vctx)->state = EVP_RAND_STATE_READY;
  return 1;
}

int uninstantiate(void* vctx) {
  seed_of(vctx)->state = EVP_RAND_STATE_UNINITIALISED;
  return 1;
}

// Throws unless the context was instantiated.
void require_ready(const SeedContext& c) {
  if (c.state != EVP_RAND_STATE_READY)
    throw InvalidArgument("CRYPTOACCEL-SEED used before it was instantiated");
}

int generate(void* vctx, unsigned char* out, std::size_t outlen, unsigned, int,
             const unsigned char*, std::size_t) {
  SeedContext* c = seed_of(vctx);
  return guarded(c->provider, 0, [&] {
    require_ready(*c);
    c->provider->seed().fill({out, outlen});
    return 1;
  });
}

int reseed(void* vctx, int, const unsigned char*, std::size_t, const unsigned char*, std::size_t) {
  // Every read comes fresh from the source: nothing to reseed.
  SeedContext* c = seed_of(vctx);
  return guarded(c->provider, 0, [&] {
    require_ready(*c);
    return 1;
  });
}

std::size_t get_seed(void* vctx, unsigned char** pout, int entropy, std::size_t min_len,
                     std::size_t max_len, int, const unsigned char*, std::size_t) {
  SeedContext* c = seed_of(vctx);
  return guarded(c->provider, std::size_t{0}, [&]() -> std::size_t {
    require_ready(*c);
    SeedSource& seed = c->provider->seed();
    const std::size_t length = seed.length_for(entropy, min_len, max_len);
    // The secure heap when the application set one up: this is key material.
    auto* buffer = static_cast<unsigned char*>(OPENSSL_secure_malloc(length));
    if (buffer == nullptr) {
      seed.count_failure();
      throw std::bad_alloc();
    }
    try {
      seed.fill({buffer, length});
    } catch (...) {
      OPENSSL_secure_clear_free(buffer, length);
      throw;
    }
    *pout = buffer;
    return length;
  });
}

void clear_seed(void*, unsigned char* out, std::size_t outlen) {
  // The first argument is the *child* DRBG (drbg.c passes its own context),
  // not ours: it is not used.
  OPENSSL_secure_clear_free(out, outlen);
}

int enable_locking(void* vctx) {
  SeedContext* c = seed_of(vctx);
  if (c->lock == nullptr) c->lock.reset(new (std::nothrow) std::mutex);
  if (c->lock != nullptr) return 1;
  CRYPTOACCEL_RAISE(c->provider, kReasonOutOfMemory, "cryptoaccel: out of memory");
  return 0;
}

int lock(void* vctx) {
  SeedContext* c = seed_of(vctx);
  if (c->lock != nullptr) c->lock->lock();
  return 1;
}

void unlock(void* vctx) {
  SeedContext* c = seed_of(vctx);
  if (c->lock != nullptr) c->lock->unlock();
}

const OSSL_PARAM* gettable_ctx_params(void*, void*) {
  static const OSSL_PARAM kParams[] = {OSSL_PARAM_int(OSSL_RAND_PARAM_STATE, nullptr),
                                       OSSL_PARAM_uint(OSSL_RAND_PARAM_STRENGTH, nullptr),
                                       OSSL_PARAM_size_t(OSSL_RAND_PARAM_MAX_REQUEST, nullptr),
                                       OSSL_PARAM_END};
  return kParams;
}

int get_ctx_params(void* vctx, OSSL_PARAM params[]) {
  SeedContext* c = seed_of(vctx);
  return guarded(c->provider, 0, [&] {
    OSSL_PARAM* p;
    // A source out of service stays so: say it, as OpenSSL's DRBGs do.
    const int state = c->provider->seed().out_of_service() ? EVP_RAND_STATE_ERROR : c->state.load();
    if ((p = OSSL_PARAM_locate(params, OSSL_RAND_PARAM_STATE)) && !OSSL_PARAM_set_int(p, state))
      return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_RAND_PARAM_STRENGTH)) &&
        !OSSL_PARAM_set_uint(p, kStrength))
      return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_RAND_PARAM_MAX_REQUEST)) &&
        !OSSL_PARAM_set_size_t(p, kMaxRequest))
      return 0;
    return 1;
  });
}

int verify_zeroization(void*) {
  // The context holds no secret: seeds live only in the buffers handed out.
  return 1;
}

const OSSL_DISPATCH kSeedFunctions[] = {
    entry(OSSL_FUNC_RAND_NEWCTX, &newctx),
    entry(OSSL_FUNC_RAND_FREECTX, &freectx),
    entry(OSSL_FUNC_RAND_INSTANTIATE, &instantiate),
    entry(OSSL_FUNC_RAND_UNINSTANTIATE, &uninstantiate),
    entry(OSSL_FUNC_RAND_GENERATE, &generate),
    entry(OSSL_FUNC_RAND_RESEED, &reseed),
    entry(OSSL_FUNC_RAND_ENABLE_LOCKING, &enable_locking),
    entry(OSSL_FUNC_RAND_LOCK, &lock),
    entry(OSSL_FUNC_RAND_UNLOCK, &unlock),
    entry(OSSL_FUNC_RAND_GETTABLE_CTX_PARAMS, &gettable_ctx_params),
    entry(OSSL_FUNC_RAND_GET_CTX_PARAMS, &get_ctx_params),
    entry(OSSL_FUNC_RAND_VERIFY_ZEROIZATION, &verify_zeroization),
    entry(OSSL_FUNC_RAND_GET_SEED, &get_seed),
    entry(OSSL_FUNC_RAND_CLEAR_SEED, &clear_seed),
    kEnd};

}  // namespace

const OSSL_DISPATCH* seed_functions() noexcept {
  return kSeedFunctions;
}

}  // namespace cryptoaccel::provider
