// The dispatch tables of each operation family, per algorithm.
#pragma once

#include <openssl/core.h>

#include "cryptoaccel/algorithm.hpp"

namespace cryptoaccel::provider {

const OSSL_DISPATCH* block_cipher_functions(AlgorithmId id);  // ECB, CBC, CTR, XTS, DES, ChaCha20
const OSSL_DISPATCH* gcm_functions(AlgorithmId id);           // AES-GCM
const OSSL_DISPATCH* chacha20_poly1305_functions();
const OSSL_DISPATCH* digest_functions(AlgorithmId id);
const OSSL_DISPATCH* hmac_functions();  // one EVP_MAC "HMAC" for every digest

}  // namespace cryptoaccel::provider
