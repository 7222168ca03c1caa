// The algorithm table: the one place that says what each algorithm is
// (its rows are in algorithms.def). The command's, OpenSSL's and the
// provider's names come from the row; each driver maps ids to its own names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace cryptoaccel {

// public_key: RSA, one row per modulus size; its sessions are RsaSession
// (cryptoaccel/rsa.hpp) and its requests sign, verify, encrypt, decrypt.
enum class AlgorithmKind : std::uint8_t { cipher, aead, digest, mac, public_key };

enum class CipherMode : std::uint8_t { none, ecb, cbc, ctr, xts, gcm, chacha20, chacha20_poly1305 };

// Dense ids, usable as array indexes, one per row of algorithms.def and in
// its order. `count` is not an algorithm.
enum class AlgorithmId : std::uint8_t {
#define CRYPTOACCEL_ALGORITHM(id, ...) id,
#include "cryptoaccel/algorithms.def"
#undef CRYPTOACCEL_ALGORITHM
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
  std::string_view name;             // canonical lower-case name, as `openssl speed` spells it
  std::string_view openssl_name;     // the name OpenSSL's default provider uses
  std::string_view openssl_aliases;  // its further names, colon-separated ("SHA-256:SHA256")
  std::string_view oid;              // dotted OID OpenSSL registers the name under; may be empty
  std::string_view other_names;      // further names looked up, never registered ("hmac(sha256)")
  AlgorithmKind kind;
  CipherMode mode;
  SizeRange key_size;          // bytes; digests: {0, 0}; RSA: its key blob (RsaKey::blob())
  std::size_t iv_size;         // default IV/nonce/tweak length; 0 when there is none
  SizeRange iv_sizes;          // every IV length the algorithm defines
  std::size_t block_size;      // cipher block, or digest input block (HMAC's B)
  std::size_t output_size;     // digest/MAC length; AEAD default tag length; RSA: the modulus
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
