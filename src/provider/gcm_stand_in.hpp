// A stand-in for the first piece of an AES-GCM encryption that a driver
// sealed whole, so that the piece itself need not be kept.
//
// EVP lets a message go on after its first payload piece. The provider
// seals a piece whole on the dispatcher's driver, and where another piece
// follows, the message continues in OpenSSL's streaming implementation,
// brought to the same point by a replay. Keeping each piece's ciphertext
// for that replay cost a copy of every message (7 % of a 16 KiB record on
// mb). The piece is not needed: what a replay must rebuild is the counter
// (a function of the piece's length) and GHASH's running state, which the
// piece's tag gives back. With T the tag, H = E_K(0) and J0 the counter
// block of the nonce, S = T xor E_K(J0) is GHASH over the AAD, the piece
// and the length block, so the state before the length block (and, for a
// piece that ends within a block, before that last multiplication) follows
// by multiplying by H^-1. A ciphertext of the same length whose GHASH
// reaches that state is all zeros but for one block, solved for; replayed
// into OpenSSL in the piece's place, it leaves OpenSSL's context exactly as
// the real piece would have: the rest of the message and the tag come out
// the same.
#pragma once

#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel::provider {

// GF(2^128) as GCM orders its bits (SP 800-38D, 6.3): `hi` holds bytes 0-7
// big-endian. Multiplication runs in constant time (H is secret).
struct GcmField {
  std::uint64_t hi = 0, lo = 0;
  static GcmField from(const std::uint8_t* block) noexcept;
  void to(std::uint8_t* block) const noexcept;
  GcmField operator^(GcmField other) const noexcept { return {hi ^ other.hi, lo ^ other.lo}; }
  bool operator==(const GcmField&) const = default;
};
GcmField gcm_multiply(GcmField x, GcmField y) noexcept;
GcmField gcm_inverse(GcmField x) noexcept;  // x^(2^128 - 2); 0 for 0

// The stand-in for a first piece of `length` bytes (at least 1) that was
// encrypted under `key` (AES, `ecb` its ECB cipher) and `nonce` after `aad`
// and gave the 16-byte `tag`. Throws DriverFailure where OpenSSL refuses
// the ECB cipher.
std::vector<std::uint8_t> gcm_stand_in(const EVP_CIPHER* ecb, Bytes key, Bytes nonce, Bytes aad,
                                       std::size_t length, std::span<const std::uint8_t, 16> tag);

}  // namespace cryptoaccel::provider
