// find_param(): OSSL_PARAM_locate for the parameters a context answers on
// every message. EVP asks a cipher context for one parameter at a time
// ("ivlen", "padding", "tag"), and a context that looks up each name it
// knows with OSSL_PARAM_locate pays a strcmp per name per call: a fifth of
// a 16-byte AES-GCM message through the provider. Comparing the first three
// characters first leaves a strcmp only where they match.
#pragma once

#include <openssl/core.h>

#include <cstring>

namespace cryptoaccel::provider {

// The first parameter named `key` in the list `params` (may be null), as
// OSSL_PARAM_locate finds it.
inline const OSSL_PARAM* find_param(const OSSL_PARAM* params, const char* key) noexcept {
  if (params == nullptr) return nullptr;
  for (; params->key != nullptr; ++params) {
    // Each character is read only after the one before it matched a
    // character of `key` that was not its end.
    const char* name = params->key;
    if (name[0] != key[0]) continue;
    if (key[0] == '\0') return params;
    if (name[1] != key[1]) continue;
    if (key[1] == '\0') return params;
    if (name[2] != key[2]) continue;  // "iv" against "ivlen", "tag" against "taglen"
    if (key[2] == '\0' || std::strcmp(name + 3, key + 3) == 0) return params;
  }
  return nullptr;
}

inline OSSL_PARAM* find_param(OSSL_PARAM* params, const char* key) noexcept {
  return const_cast<OSSL_PARAM*>(find_param(static_cast<const OSSL_PARAM*>(params), key));
}

}  // namespace cryptoaccel::provider
