// The provider's usage text (its `stats` parameter) in a library context
// where cryptoaccel is loaded, for the tests that check what served.
#pragma once

#include <openssl/params.h>
#include <openssl/provider.h>

#include <string>

namespace cryptoaccel::test {

inline std::string provider_stats(OSSL_PROVIDER* provider) {
  char* text = nullptr;
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_ptr("stats", &text, 0), OSSL_PARAM_END};
  if (provider == nullptr || OSSL_PROVIDER_get_params(provider, params) != 1 || text == nullptr)
    return {};
  return text;
}

inline std::string provider_stats(OSSL_LIB_CTX* ctx) {
  OSSL_PROVIDER* p = OSSL_PROVIDER_load(ctx, "cryptoaccel");
  std::string out = provider_stats(p);
  if (p != nullptr) OSSL_PROVIDER_unload(p);
  return out;
}

}  // namespace cryptoaccel::test
