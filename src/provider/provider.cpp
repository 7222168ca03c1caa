// The provider's entry point: OSSL_provider_init (the only exported
// symbol), the algorithm query, provider parameters and teardown.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cryptoaccel/driver/vector_state.hpp"
#include "cipher_families.hpp"
#include "cryptoaccel/version.hpp"
#include "errors.hpp"
#include "function_tables.hpp"
#include "keyring_store.hpp"
#include "libcrypto_binding.hpp"
#include "provider_context.hpp"
#include "rand_seed.hpp"
#include "rsa_provider.hpp"

namespace cryptoaccel::provider {
namespace {

constexpr const char* kProperties = "provider=cryptoaccel";
// The usage counters, one "ALGORITHM DRIVER requests=N bytes=N failures=N"
// line per pair (docs/provider.md).
constexpr const char* kStatsParam = "stats";
// How the dispatcher chooses: the profile used, or why none is.
constexpr const char* kDispatchParam = "dispatch";
// What CRYPTOACCEL-SEED served: "SOURCE calls=N bytes=N failures=N ...".
constexpr const char* kSeedParam = "seed";

ProviderContext* context_of(void* provctx) {
  return static_cast<ProviderContext*>(provctx);
}

void build_tables(ProviderContext& pc) {
  bool any_hmac = false;
  for (const Algorithm& a : algorithms()) {
    if (!pc.offers(a.id)) continue;
    const char* names = openssl_names(a.id);
    // Where soft alone serves, OpenSSL's own implementation, directly.
    if (const OSSL_DISPATCH* direct = pc.forwarding().table(a.id)) {
      (a.kind == AlgorithmKind::digest ? pc.digests : pc.ciphers)
          .push_back({names, kProperties, direct, nullptr});
      continue;
    }
    switch (a.kind) {
      case AlgorithmKind::cipher:
        pc.ciphers.push_back({names, kProperties, block_cipher_functions(a.id), nullptr});
        break;
      case AlgorithmKind::aead:
        pc.ciphers.push_back(
            {names, kProperties,
             a.mode == CipherMode::gcm ? gcm_functions(a.id) : chacha20_poly1305_functions(),
             nullptr});
        break;
      case AlgorithmKind::digest:
        pc.digests.push_back({names, kProperties, digest_functions(a.id), nullptr});
        break;
      case AlgorithmKind::mac:
        any_hmac = true;
        break;
      case AlgorithmKind::public_key:
        break;  // the key management, signature and cipher below serve every size
    }
  }
  // RSA: one key type, signature and cipher for every size, wrapping
  // OpenSSL's default (rsa_provider.hpp).
  const bool any_rsa = pc.offers(AlgorithmId::rsa2048) || pc.offers(AlgorithmId::rsa3072) ||
                       pc.offers(AlgorithmId::rsa4096);
  if (any_rsa && pc.rsa_inner().complete()) {
    pc.keymgmts.push_back({kRsaNames, kProperties, rsa_keymgmt_functions(), nullptr});
    pc.signatures.push_back({kRsaNames, kProperties, rsa_signature_functions(), nullptr});
    pc.asym_ciphers.push_back({kRsaNames, kProperties, rsa_asym_cipher_functions(), nullptr});
    pc.stores.push_back({kKeyringStoreScheme, kProperties, keyring_store_functions(),
                         "cryptoaccel-keyring:FILE: an RSA private key file, moved into the "
                         "kernel keyring as it is loaded"});
  }
  if (any_hmac) {
    const OSSL_DISPATCH* direct = pc.forwarding().hmac_table();
    pc.macs.push_back({"HMAC", kProperties, direct ? direct : hmac_functions(), nullptr});
  }
  // Always offered: which source it reads is decided when OpenSSL first
  // asks for a seed, and a failure then is reported (docs/rng.md).
  pc.rands.push_back({kSeedName, kProperties, seed_functions(),
                      "cryptoaccel seed source: a hardware RNG through SP 800-90B health tests"});
  for (auto* list : {&pc.ciphers, &pc.digests, &pc.macs, &pc.rands, &pc.keymgmts, &pc.signatures,
                     &pc.asym_ciphers, &pc.stores})
    list->push_back({nullptr, nullptr, nullptr, nullptr});
}

const OSSL_ALGORITHM* query(void* provctx, int operation, int* no_store) {
  ProviderContext* pc = context_of(provctx);
  *no_store = 0;
  switch (operation) {
    case OSSL_OP_CIPHER:
      return pc->ciphers.data();
    case OSSL_OP_DIGEST:
      return pc->digests.data();
    case OSSL_OP_MAC:
      return pc->macs.data();
    case OSSL_OP_RAND:
      return pc->rands.data();
    case OSSL_OP_KEYMGMT:
      return pc->keymgmts.data();
    case OSSL_OP_SIGNATURE:
      return pc->signatures.data();
    case OSSL_OP_ASYM_CIPHER:
      return pc->asym_ciphers.data();
    case OSSL_OP_STORE:
      return pc->stores.data();
    default:
      return nullptr;
  }
}

void teardown(void* provctx) {
  // Prints the usage when asked; nothing in it throws past this point.
  std::unique_ptr<ProviderContext> owned(context_of(provctx));
}

const OSSL_PARAM* gettable_params(void*) {
  static const OSSL_PARAM kParams[] = {OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, nullptr, 0),
                                       OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, nullptr, 0),
                                       OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, nullptr, 0),
                                       OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, nullptr),
                                       OSSL_PARAM_utf8_string(kStatsParam, nullptr, 0),
                                       OSSL_PARAM_utf8_string(kDispatchParam, nullptr, 0),
                                       OSSL_PARAM_utf8_string(kSeedParam, nullptr, 0),
                                       OSSL_PARAM_END};
  return kParams;
}

int set_text(OSSL_PARAM* p, const char* text) {
  if (p->data_type == OSSL_PARAM_UTF8_PTR) return OSSL_PARAM_set_utf8_ptr(p, text);
  return OSSL_PARAM_set_utf8_string(p, text);
}

int get_params(void* provctx, OSSL_PARAM params[]) {
  ProviderContext* pc = context_of(provctx);
  return guarded(pc, 0, [&] {
    OSSL_PARAM* p;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) &&
        !set_text(p, "cryptoaccel: userland crypto accelerators"))
      return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) &&
        !set_text(p, CRYPTOACCEL_VERSION_STRING))
      return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) &&
        !set_text(p, CRYPTOACCEL_VERSION_STRING))
      return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) && !OSSL_PARAM_set_int(p, 1))
      return 0;
    using Text = ProviderContext::ParamText;
    if ((p = OSSL_PARAM_locate(params, kStatsParam)) &&
        !set_text(p, pc->text_for_param(Text::stats)))
      return 0;
    if ((p = OSSL_PARAM_locate(params, kDispatchParam)) &&
        !set_text(p, pc->text_for_param(Text::dispatch)))
      return 0;
    if ((p = OSSL_PARAM_locate(params, kSeedParam)) && !set_text(p, pc->text_for_param(Text::seed)))
      return 0;
    return 1;
  });
}

const OSSL_ITEM* get_reason_strings(void*) {
  return reason_strings();
}

const OSSL_DISPATCH kProviderFunctions[] = {
    entry(OSSL_FUNC_PROVIDER_TEARDOWN, &teardown),
    entry(OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, &gettable_params),
    entry(OSSL_FUNC_PROVIDER_GET_PARAMS, &get_params),
    entry(OSSL_FUNC_PROVIDER_QUERY_OPERATION, &query),
    entry(OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, &get_reason_strings),
    kEnd};

}  // namespace
}  // namespace cryptoaccel::provider

// OpenSSL's core calls this when it loads cryptoaccel.so. A configuration
// it cannot use (an unknown driver, a bad policy) fails the load with the
// reason on the error queue: silently serving something else than what
// was configured would hide the mistake.
extern "C" [[gnu::visibility("default")]] int OSSL_provider_init(const OSSL_CORE_HANDLE* handle,
                                                                 const OSSL_DISPATCH* in,
                                                                 const OSSL_DISPATCH** out,
                                                                 void** provctx) {
  using namespace cryptoaccel::provider;
  try {
    // Before anything calls libcrypto: the one that is loading the module.
    if (const std::string problem = bind_libcrypto_of_core(in); !problem.empty())
      throw std::runtime_error(problem);
    auto context = std::make_unique<ProviderContext>(handle, in);
    build_tables(*context);
    *provctx = context.release();
    *out = kProviderFunctions;
    // The loading ran OpenSSL's and the drivers' vector code (self-tests,
    // probes of the default provider) on the application's thread.
    cryptoaccel::clear_upper_vector_state();
    return 1;
  } catch (...) {
    const OpenSslErrorQueue errors(handle, in);
    raise_exception(&errors, std::source_location::current());
    // Also where a person sees it: most applications never print the error
    // queue, and a provider that silently stays unloaded leaves OpenSSL's
    // default serving while the user believes cryptoaccel does.
    try {
      throw;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cryptoaccel provider not loaded: %s\n", e.what());
    } catch (...) {
    }
    return 0;
  }
}
