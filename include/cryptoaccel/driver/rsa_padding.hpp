// RSA's paddings (RFC 8017), for a driver whose device or kernel does raw
// RSA only (m^d and m^e mod n) or whose own padding does not fit a request:
// it encodes here, runs the raw operation, and decodes here. Encodings are
// one modulus long (`em.size()` is the modulus's byte length); decoding an
// encryption runs in time that does not depend on where or whether the
// padding is wrong, and every bad one gives the same decryption_failed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "cryptoaccel/error.hpp"
#include "cryptoaccel/rsa.hpp"

namespace cryptoaccel::rsa_padding {

// PKCS#1 v1.5 (EMSA) or PSS: the encoded message a raw private operation
// turns into the signature. `digest` as RsaSession::sign takes it.
ErrorCode encode_signature(const RsaParameters& parameters, std::span<const std::uint8_t> digest,
                           std::size_t modulus_bits, std::span<std::uint8_t> em) noexcept;

// Whether `em`, the raw public operation on a signature, is a valid
// encoding of `digest`.
bool verify_signature(const RsaParameters& parameters, std::span<const std::uint8_t> digest,
                      std::size_t modulus_bits, std::span<const std::uint8_t> em) noexcept;

// PKCS#1 v1.5 (EME) or OAEP, with fresh random padding: what a raw public
// operation turns into the ciphertext. With no padding, the message itself
// (exactly em.size() bytes).
ErrorCode encode_encryption(const RsaParameters& parameters, std::span<const std::uint8_t> message,
                            std::span<std::uint8_t> em) noexcept;

// The message in `em`, the raw private operation on a ciphertext: written
// to the front of `out` (at least em.size() bytes; all of them are
// written) with its length in `length`. decryption_failed for any bad
// padding, in constant time; `out` then holds no part of the message.
// With no padding the message is `em` itself.
ErrorCode decode_encryption(const RsaParameters& parameters, std::span<const std::uint8_t> em,
                            std::span<std::uint8_t> out, std::size_t& length) noexcept;

}  // namespace cryptoaccel::rsa_padding
