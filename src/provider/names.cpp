// Names and OIDs as OpenSSL 3.0's default provider declares them
// (`openssl list -cipher-algorithms` etc.), indexed by AlgorithmId.
#include <array>

#include "dispatch.hpp"

namespace cryptoaccel::provider {
namespace {

constexpr std::array<const char*, kAlgorithmCount> kNames{{
    "AES-128-ECB:2.16.840.1.101.3.4.1.1",
    "AES-192-ECB:2.16.840.1.101.3.4.1.21",
    "AES-256-ECB:2.16.840.1.101.3.4.1.41",
    "AES-128-CBC:AES128:2.16.840.1.101.3.4.1.2",
    "AES-192-CBC:AES192:2.16.840.1.101.3.4.1.22",
    "AES-256-CBC:AES256:2.16.840.1.101.3.4.1.42",
    "AES-128-CTR",
    "AES-192-CTR",
    "AES-256-CTR",
    "AES-128-XTS:1.3.111.2.1619.0.1.1",
    "AES-256-XTS:1.3.111.2.1619.0.1.2",
    "AES-128-GCM:id-aes128-GCM:2.16.840.1.101.3.4.1.6",
    "AES-192-GCM:id-aes192-GCM:2.16.840.1.101.3.4.1.26",
    "AES-256-GCM:id-aes256-GCM:2.16.840.1.101.3.4.1.46",
    "ChaCha20",
    "ChaCha20-Poly1305",
    "DES-CBC:DES:1.3.14.3.2.7",
    "DES-EDE3-CBC:DES3:1.2.840.113549.3.7",
    "MD5:SSL3-MD5:1.2.840.113549.2.5",
    "SHA1:SHA-1:SSL3-SHA1:1.3.14.3.2.26",
    "SHA2-224:SHA-224:SHA224:2.16.840.1.101.3.4.2.4",
    "SHA2-256:SHA-256:SHA256:2.16.840.1.101.3.4.2.1",
    "SHA2-384:SHA-384:SHA384:2.16.840.1.101.3.4.2.2",
    "SHA2-512:SHA-512:SHA512:2.16.840.1.101.3.4.2.3",
    // In the default provider since OpenSSL 3.0.7, in the legacy one before.
    "RIPEMD-160:RIPEMD160:RIPEMD:RMD160:1.3.36.3.2.1",
    // HMACs are one EVP_MAC ("HMAC") with a digest parameter.
    "HMAC",
    "HMAC",
    "HMAC",
    "HMAC",
    "HMAC",
    "HMAC",
    "HMAC",
}};

// A row left out would be a null entry, not a compile error.
constexpr bool every_algorithm_named() {
  for (const char* names : kNames)
    if (names == nullptr) return false;
  return true;
}
static_assert(every_algorithm_named(), "kNames needs one row per AlgorithmId, in its order");

}  // namespace

const char* openssl_names(AlgorithmId id) noexcept {
  return kNames[index_of(id)];
}

}  // namespace cryptoaccel::provider
