#include "algorithm_map.hpp"

namespace cryptoaccel::dpdk {

std::optional<int> backend_algorithm(AlgorithmId id) {
  switch (id) {
    case AlgorithmId::aes_128_ecb:
    case AlgorithmId::aes_192_ecb:
    case AlgorithmId::aes_256_ecb:
      return CA_DPDK_AES_ECB;
    case AlgorithmId::aes_128_cbc:
    case AlgorithmId::aes_192_cbc:
    case AlgorithmId::aes_256_cbc:
      return CA_DPDK_AES_CBC;
    case AlgorithmId::aes_128_ctr:
    case AlgorithmId::aes_192_ctr:
    case AlgorithmId::aes_256_ctr:
      return CA_DPDK_AES_CTR;
    case AlgorithmId::aes_128_xts:
    case AlgorithmId::aes_256_xts:
      return CA_DPDK_AES_XTS;
    case AlgorithmId::aes_128_gcm:
    case AlgorithmId::aes_192_gcm:
    case AlgorithmId::aes_256_gcm:
      return CA_DPDK_AES_GCM;
    case AlgorithmId::chacha20_poly1305:
      return CA_DPDK_CHACHA20_POLY1305;
    case AlgorithmId::des_cbc:
      return CA_DPDK_DES_CBC;
    case AlgorithmId::des_ede3_cbc:
      return CA_DPDK_3DES_CBC;
    case AlgorithmId::md5:
      return CA_DPDK_MD5;
    case AlgorithmId::sha1:
      return CA_DPDK_SHA1;
    case AlgorithmId::sha224:
      return CA_DPDK_SHA224;
    case AlgorithmId::sha256:
      return CA_DPDK_SHA256;
    case AlgorithmId::sha384:
      return CA_DPDK_SHA384;
    case AlgorithmId::sha512:
      return CA_DPDK_SHA512;
    case AlgorithmId::hmac_md5:
      return CA_DPDK_HMAC_MD5;
    case AlgorithmId::hmac_sha1:
      return CA_DPDK_HMAC_SHA1;
    case AlgorithmId::hmac_sha224:
      return CA_DPDK_HMAC_SHA224;
    case AlgorithmId::hmac_sha256:
      return CA_DPDK_HMAC_SHA256;
    case AlgorithmId::hmac_sha384:
      return CA_DPDK_HMAC_SHA384;
    case AlgorithmId::hmac_sha512:
      return CA_DPDK_HMAC_SHA512;
    // DPDK 22.11 names no ChaCha20 alone, no RIPEMD-160, and its RSA is
    // the asymmetric API, which this driver does not use.
    case AlgorithmId::chacha20:
    case AlgorithmId::ripemd160:
    case AlgorithmId::hmac_ripemd160:
    case AlgorithmId::rsa2048:
    case AlgorithmId::rsa3072:
    case AlgorithmId::rsa4096:
    case AlgorithmId::count:
      return std::nullopt;
  }
  return std::nullopt;
}

bool accepts(const ca_dpdk_range& range, std::size_t n) {
  if (n < range.min || n > range.max) return false;
  return range.step == 0 ? n == range.min : (n - range.min) % range.step == 0;
}

std::optional<int> plain_digest_of(int hmac) {
  static_assert(CA_DPDK_HMAC_SHA512 - CA_DPDK_HMAC_MD5 == CA_DPDK_SHA512 - CA_DPDK_MD5,
                "each HMAC sits as far from the first as its digest does");
  if (hmac < CA_DPDK_HMAC_MD5 || hmac > CA_DPDK_HMAC_SHA512) return std::nullopt;
  return hmac - CA_DPDK_HMAC_MD5 + CA_DPDK_MD5;
}

}  // namespace cryptoaccel::dpdk
