// The algorithm table: the one place that says what each algorithm is.
// CLI names, OpenSSL names and (later) kernel and cryptodev names are all
// derived from or mapped beside this table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace cryptoaccel {

enum class AlgorithmKind : std::uint8_t { cipher, aead, digest, mac };

enum class CipherMode : std::uint8_t { none, ecb, cbc, ctr, xts, gcm, chacha20, chacha20_poly1305 };

// Dense ids: usable as array indexes. `count` is not an algorithm.
enum class AlgorithmId : std::uint8_t {
  aes_128_ecb,
  aes_192_ecb,
  aes_256_ecb,
  aes_128_cbc,
  aes_192_cbc,
  aes_256_cbc,
  aes_128_ctr,
  aes_192_ctr,
  aes_256_ctr,
  aes_128_xts,
  aes_256_xts,
  aes_128_gcm,
  aes_192_gcm,
  aes_256_gcm,
  chacha20,
  chacha20_poly1305,
  des_cbc,
  des_ede3_cbc,
  md5,
  sha1,
  sha224,
  sha256,
  sha384,
  sha512,
  ripemd160,
  hmac_md5,
  hmac_sha1,
  hmac_sha224,
  hmac_sha256,
  hmac_sha384,
  hmac_sha512,
  hmac_ripemd160,
  count
};

inline constexpr std::size_t kAlgorithmCount = static_cast<std::size_t>(AlgorithmId::count);

constexpr std::size_t index_of(AlgorithmId id) {
  return static_cast<std::size_t>(id);
}

// An inclusive range of byte lengths.
struct SizeRange {
  std::size_t min = 0;
  std::size_t max = 0;
  constexpr bool contains(std::size_t n) const { return n >= min && n <= max; }
  constexpr bool operator==(const SizeRange&) const = default;
};

struct Algorithm {
  AlgorithmId id;
  std::string_view name;          // canonical lower-case name, as `openssl speed` spells it
  std::string_view openssl_name;  // the name OpenSSL's default provider uses
  AlgorithmKind kind;
  CipherMode mode;
  SizeRange key_size;          // bytes; digests: {0, 0}
  std::size_t iv_size;         // default IV/nonce/tweak length; 0 when there is none
  SizeRange iv_sizes;          // every IV length the algorithm defines
  std::size_t block_size;      // cipher block, or digest input block (HMAC's B)
  std::size_t output_size;     // digest/MAC length; AEAD default tag length
  SizeRange tag_sizes;         // AEAD tag lengths; others {0, 0}
  std::size_t input_multiple;  // cipher input must be a multiple of this (1: any length)
  std::size_t min_input;       // and at least this long (XTS: one block)
  std::string_view digest;     // HMAC: the digest it is built on ("sha256")
  bool insecure;               // listed for compatibility only
  std::string_view note;       // why it is insecure, or other caveats
};

// Every algorithm, in AlgorithmId order.
std::span<const Algorithm> algorithms() noexcept;

const Algorithm& algorithm(AlgorithmId id) noexcept;

// Looks up a canonical name, an OpenSSL name or an alias ("hmac(sha256)",
// "AES-128-CBC", "sha-256"), ignoring case. Returns null when unknown.
const Algorithm* find_algorithm(std::string_view name) noexcept;

// As find_algorithm, but throws NotFound naming the algorithm.
const Algorithm& algorithm_or_throw(std::string_view name);

// Moves the IV of a keystream cipher (CTR, ChaCha20) on by `blocks`
// keystream blocks (block_size bytes each), as OpenSSL counts: CTR adds to
// a big-endian 128-bit counter; ChaCha20 to the little-endian block counter
// in bytes 0-3, carrying into bytes 4-7 (RFC 8439 allows no wrap; OpenSSL
// and therefore this library carry). Other modes: does nothing.
void advance_counter(const Algorithm& a, std::span<std::uint8_t> iv, std::uint64_t blocks) noexcept;

std::string_view to_string(AlgorithmKind kind) noexcept;
std::string_view to_string(CipherMode mode) noexcept;

}  // namespace cryptoaccel
