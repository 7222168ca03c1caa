#include "cipher_common.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <string>

#include "errors.hpp"

namespace cryptoaccel::provider {

unsigned openssl_mode(const Algorithm& a) noexcept {
  switch (a.mode) {
    case CipherMode::ecb:
      return EVP_CIPH_ECB_MODE;
    case CipherMode::cbc:
      return EVP_CIPH_CBC_MODE;
    case CipherMode::ctr:
      return EVP_CIPH_CTR_MODE;
    case CipherMode::xts:
      return EVP_CIPH_XTS_MODE;
    case CipherMode::gcm:
      return EVP_CIPH_GCM_MODE;
    default:
      return EVP_CIPH_STREAM_CIPHER;  // ChaCha20 and ChaCha20-Poly1305, as OpenSSL declares them
  }
}

std::size_t openssl_block_size(const Algorithm& a) noexcept {
  // Only ECB and CBC buffer partial blocks; the others take any length.
  return a.mode == CipherMode::ecb || a.mode == CipherMode::cbc ? a.block_size : 1;
}

int cipher_get_params(const Algorithm& a, OSSL_PARAM params[]) noexcept {
  const bool aead = a.kind == AlgorithmKind::aead;
  // OpenSSL's GCM, ChaCha20-Poly1305, XTS and ChaCha20 manage their IVs themselves.
  const bool custom_iv = aead || a.mode == CipherMode::xts || a.mode == CipherMode::chacha20;
  const bool randkey = a.id == AlgorithmId::des_ede3_cbc || a.id == AlgorithmId::des_cbc;
  OSSL_PARAM* p;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_MODE)) &&
      !OSSL_PARAM_set_uint(p, openssl_mode(a)))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) &&
      !OSSL_PARAM_set_size_t(p, a.key_size.min))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) &&
      !OSSL_PARAM_set_size_t(p, a.iv_size))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) &&
      !OSSL_PARAM_set_size_t(p, openssl_block_size(a)))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD)) && !OSSL_PARAM_set_int(p, aead))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CUSTOM_IV)) &&
      !OSSL_PARAM_set_int(p, custom_iv))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CTS)) && !OSSL_PARAM_set_int(p, 0)) return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK)) &&
      !OSSL_PARAM_set_int(p, 0))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_HAS_RAND_KEY)) &&
      !OSSL_PARAM_set_int(p, randkey))
    return 0;
  return 1;
}

const OSSL_PARAM* cipher_gettable_params(void*) noexcept {
  static const OSSL_PARAM kParams[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, nullptr),
                                       OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
                                       OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
                                       OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, nullptr),
                                       OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, nullptr),
                                       OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, nullptr),
                                       OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, nullptr),
                                       OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, nullptr),
                                       OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, nullptr),
                                       OSSL_PARAM_END};
  return kParams;
}

int set_iv_param(OSSL_PARAM* p, const std::uint8_t* bytes, std::size_t size) noexcept {
  if (p->data_type == OSSL_PARAM_OCTET_PTR) return OSSL_PARAM_set_octet_ptr(p, bytes, size);
  return OSSL_PARAM_set_octet_string(p, bytes, size);
}

bool read_size(const ProviderContext* pc, const OSSL_PARAM* p, std::size_t& out) noexcept {
  if (OSSL_PARAM_get_size_t(p, &out)) return true;
  CRYPTOACCEL_RAISE(pc, kReasonBadParameter, "cryptoaccel: parameter '%s' must be an integer",
                    p->key);
  return false;
}

bool read_uint(const ProviderContext* pc, const OSSL_PARAM* p, unsigned& out) noexcept {
  if (OSSL_PARAM_get_uint(p, &out)) return true;
  CRYPTOACCEL_RAISE(pc, kReasonBadParameter, "cryptoaccel: parameter '%s' must be an integer",
                    p->key);
  return false;
}

const char* repeated_known_param(const OSSL_PARAM params[], const OSSL_PARAM known[]) noexcept {
  if (params == nullptr || known == nullptr) return nullptr;
  for (const OSSL_PARAM* p = params; p->key != nullptr; ++p) {
    if (OSSL_PARAM_locate_const(known, p->key) == nullptr) continue;
    if (OSSL_PARAM_locate_const(p + 1, p->key) != nullptr) return p->key;
  }
  return nullptr;
}

bool refuses_repeated_param(ProviderContext* pc, const OSSL_PARAM params[],
                            const OSSL_PARAM known[]) noexcept {
  if (params == nullptr || !pc->openssl_default().contract().repeated_param_refused) return false;
  const char* repeated = repeated_known_param(params, known);
  if (repeated == nullptr) return false;
  CRYPTOACCEL_RAISE(pc, kReasonBadParameter, "cryptoaccel: parameter '%s' is repeated", repeated);
  return true;
}

void check_key_length(const Algorithm& a, std::size_t keylen) {
  if (!a.key_size.contains(keylen))
    throw InvalidKeyLength(std::string(a.name) + " takes a " + std::to_string(a.key_size.min) +
                           "-byte key, not " + std::to_string(keylen));
}

}  // namespace cryptoaccel::provider
