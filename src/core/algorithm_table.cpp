// The algorithm table. Adding an algorithm is one row here, its vectors, and
// the drivers that claim it.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "cryptoaccel/algorithm.hpp"
#include "cryptoaccel/error.hpp"

namespace cryptoaccel {
namespace {

using K = AlgorithmKind;
using M = CipherMode;

constexpr SizeRange fixed(std::size_t n) {
  return {n, n};
}
constexpr SizeRange kNone{0, 0};
// HMAC takes keys of any length; the bound only keeps hostile input finite.
constexpr SizeRange kHmacKeys{0, 65536};
// GCM defines any IV length; 12 bytes is the fast, recommended one. The bound
// covers every CAVP vector (up to 1024 bits) and is OpenSSL's own limit.
constexpr SizeRange kGcmIvs{1, 128};

constexpr Algorithm cipher(AlgorithmId id, std::string_view name, std::string_view ossl, M mode,
                           std::size_t key, std::size_t iv, std::size_t block, std::size_t multiple,
                           std::size_t min_input, bool insecure = false,
                           std::string_view note = {}) {
  return Algorithm{id,    name, ossl,  K::cipher, mode,      fixed(key), iv,       fixed(iv),
                   block, 0,    kNone, multiple,  min_input, {},         insecure, note};
}

constexpr Algorithm gcm(AlgorithmId id, std::string_view name, std::string_view ossl,
                        std::size_t key) {
  return Algorithm{id, name, ossl,    K::aead, M::gcm, fixed(key), 12,    kGcmIvs,
                   16, 16,   {4, 16}, 1,       0,      {},         false, {}};
}

constexpr Algorithm digest(AlgorithmId id, std::string_view name, std::string_view ossl,
                           std::size_t block, std::size_t size, bool insecure = false,
                           std::string_view note = {}) {
  return Algorithm{id,    name, ossl,  K::digest, M::none, kNone, 0,        kNone,
                   block, size, kNone, 1,         0,       {},    insecure, note};
}

constexpr Algorithm hmac(AlgorithmId id, std::string_view name, std::string_view ossl,
                         std::string_view digest_name, std::size_t block, std::size_t size) {
  return Algorithm{id,    name, ossl,  K::mac, M::none, kHmacKeys,   0,     kNone,
                   block, size, kNone, 1,      0,       digest_name, false, {}};
}

using A = AlgorithmId;

constexpr std::array<Algorithm, kAlgorithmCount> kTable{{
    cipher(A::aes_128_ecb, "aes-128-ecb", "AES-128-ECB", M::ecb, 16, 0, 16, 16, 0),
    cipher(A::aes_192_ecb, "aes-192-ecb", "AES-192-ECB", M::ecb, 24, 0, 16, 16, 0),
    cipher(A::aes_256_ecb, "aes-256-ecb", "AES-256-ECB", M::ecb, 32, 0, 16, 16, 0),
    cipher(A::aes_128_cbc, "aes-128-cbc", "AES-128-CBC", M::cbc, 16, 16, 16, 16, 0),
    cipher(A::aes_192_cbc, "aes-192-cbc", "AES-192-CBC", M::cbc, 24, 16, 16, 16, 0),
    cipher(A::aes_256_cbc, "aes-256-cbc", "AES-256-CBC", M::cbc, 32, 16, 16, 16, 0),
    cipher(A::aes_128_ctr, "aes-128-ctr", "AES-128-CTR", M::ctr, 16, 16, 16, 1, 0),
    cipher(A::aes_192_ctr, "aes-192-ctr", "AES-192-CTR", M::ctr, 24, 16, 16, 1, 0),
    cipher(A::aes_256_ctr, "aes-256-ctr", "AES-256-CTR", M::ctr, 32, 16, 16, 1, 0),
    // XTS keys are two AES keys; the input is one data unit of at least a block.
    cipher(A::aes_128_xts, "aes-128-xts", "AES-128-XTS", M::xts, 32, 16, 16, 1, 16),
    cipher(A::aes_256_xts, "aes-256-xts", "AES-256-XTS", M::xts, 64, 16, 16, 1, 16),
    gcm(A::aes_128_gcm, "aes-128-gcm", "AES-128-GCM", 16),
    gcm(A::aes_192_gcm, "aes-192-gcm", "AES-192-GCM", 24),
    gcm(A::aes_256_gcm, "aes-256-gcm", "AES-256-GCM", 32),
    // The IV is OpenSSL's and the kernel's: a 4-byte little-endian block
    // counter, then RFC 8439's 12-byte nonce. block_size is the keystream
    // block, for counting; EVP sees a stream cipher (block size 1).
    cipher(A::chacha20, "chacha20", "ChaCha20", M::chacha20, 32, 16, 64, 1, 0),
    Algorithm{A::chacha20_poly1305,
              "chacha20-poly1305",
              "ChaCha20-Poly1305",
              K::aead,
              M::chacha20_poly1305,
              fixed(32),
              12,
              fixed(12),
              1,
              16,
              fixed(16),
              1,
              0,
              {},
              false,
              {}},
    cipher(A::des_cbc, "des-cbc", "DES-CBC", M::cbc, 8, 8, 8, 8, 0, true,
           "56-bit key: broken by exhaustive search; legacy interoperability only"),
    cipher(A::des_ede3_cbc, "des-ede3-cbc", "DES-EDE3-CBC", M::cbc, 24, 8, 8, 8, 0, false,
           "64-bit block: rekey well before 2^32 blocks (Sweet32)"),
    digest(A::md5, "md5", "MD5", 64, 16, true, "collisions are practical; do not sign with it"),
    digest(A::sha1, "sha1", "SHA1", 64, 20, false, "collisions are practical; HMAC is still sound"),
    digest(A::sha224, "sha224", "SHA2-224", 64, 28),
    digest(A::sha256, "sha256", "SHA2-256", 64, 32),
    digest(A::sha384, "sha384", "SHA2-384", 128, 48),
    digest(A::sha512, "sha512", "SHA2-512", 128, 64),
    digest(A::ripemd160, "ripemd160", "RIPEMD-160", 64, 20),
    hmac(A::hmac_md5, "hmac-md5", "HMAC-MD5", "md5", 64, 16),
    hmac(A::hmac_sha1, "hmac-sha1", "HMAC-SHA1", "sha1", 64, 20),
    hmac(A::hmac_sha224, "hmac-sha224", "HMAC-SHA2-224", "sha224", 64, 28),
    hmac(A::hmac_sha256, "hmac-sha256", "HMAC-SHA2-256", "sha256", 64, 32),
    hmac(A::hmac_sha384, "hmac-sha384", "HMAC-SHA2-384", "sha384", 128, 48),
    hmac(A::hmac_sha512, "hmac-sha512", "HMAC-SHA2-512", "sha512", 128, 64),
    hmac(A::hmac_ripemd160, "hmac-ripemd160", "HMAC-RIPEMD160", "ripemd160", 64, 20),
}};

constexpr bool table_is_in_id_order() {
  for (std::size_t i = 0; i < kTable.size(); ++i)
    if (index_of(kTable[i].id) != i) return false;
  return true;
}
static_assert(table_is_in_id_order(), "kTable rows must follow AlgorithmId order");

// Names people also use: OpenSSL's aliases and the kernel's spelling of HMAC.
struct Alias {
  std::string_view alias;
  AlgorithmId id;
};
constexpr std::array<Alias, 25> kAliases{{
    {"des", A::des_cbc},
    {"des3", A::des_ede3_cbc},
    {"3des", A::des_ede3_cbc},
    {"des-ede3", A::des_ede3_cbc},
    {"3des-cbc", A::des_ede3_cbc},
    {"sha-1", A::sha1},
    {"sha-224", A::sha224},
    {"sha-256", A::sha256},
    {"sha-384", A::sha384},
    {"sha-512", A::sha512},
    {"sha2-224", A::sha224},
    {"sha2-256", A::sha256},
    {"sha2-384", A::sha384},
    {"sha2-512", A::sha512},
    // OpenSSL's "RIPEMD160" is the canonical name (lookups ignore case);
    // "rmd160" is OpenSSL's alias and the kernel's name.
    {"rmd160", A::ripemd160},
    {"ripemd", A::ripemd160},
    {"hmac(md5)", A::hmac_md5},
    {"hmac(sha1)", A::hmac_sha1},
    {"hmac(sha224)", A::hmac_sha224},
    {"hmac(sha256)", A::hmac_sha256},
    {"hmac(sha384)", A::hmac_sha384},
    {"hmac(sha512)", A::hmac_sha512},
    {"hmac(rmd160)", A::hmac_ripemd160},
    {"id-aes128-gcm", A::aes_128_gcm},
    {"id-aes256-gcm", A::aes_256_gcm},
}};

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

std::span<const Algorithm> algorithms() noexcept {
  return kTable;
}

const Algorithm& algorithm(AlgorithmId id) noexcept {
  return kTable[index_of(id)];
}

const Algorithm* find_algorithm(std::string_view name) noexcept {
  for (const auto& a : kTable)
    if (equal_ignoring_case(name, a.name) || equal_ignoring_case(name, a.openssl_name)) return &a;
  for (const auto& a : kAliases)
    if (equal_ignoring_case(name, a.alias)) return &kTable[index_of(a.id)];
  return nullptr;
}

const Algorithm& algorithm_or_throw(std::string_view name) {
  if (const Algorithm* a = find_algorithm(name)) return *a;
  throw NotFound("unknown algorithm '" + std::string(name) +
                 "' (`cryptoaccel list` shows the algorithms)");
}

void advance_counter(const Algorithm& a, std::span<std::uint8_t> iv,
                     std::uint64_t blocks) noexcept {
  if (a.mode == M::ctr) {
    for (std::size_t i = iv.size(); i-- > 0 && blocks != 0;) {
      const std::uint64_t sum = iv[i] + (blocks & 0xff);
      iv[i] = static_cast<std::uint8_t>(sum);
      blocks = (blocks >> 8) + (sum >> 8);
    }
  } else if (a.mode == M::chacha20 && iv.size() >= 8) {
    for (std::size_t i = 0; i < 8 && blocks != 0; ++i) {
      const std::uint64_t sum = iv[i] + (blocks & 0xff);
      iv[i] = static_cast<std::uint8_t>(sum);
      blocks = (blocks >> 8) + (sum >> 8);
    }
  }
}

std::string_view to_string(AlgorithmKind kind) noexcept {
  switch (kind) {
    case K::cipher:
      return "cipher";
    case K::aead:
      return "aead";
    case K::digest:
      return "digest";
    case K::mac:
      return "mac";
  }
  return "?";
}

std::string_view to_string(CipherMode mode) noexcept {
  switch (mode) {
    case M::none:
      return "none";
    case M::ecb:
      return "ecb";
    case M::cbc:
      return "cbc";
    case M::ctr:
      return "ctr";
    case M::xts:
      return "xts";
    case M::gcm:
      return "gcm";
    case M::chacha20:
      return "chacha20";
    case M::chacha20_poly1305:
      return "chacha20-poly1305";
  }
  return "?";
}

}  // namespace cryptoaccel
