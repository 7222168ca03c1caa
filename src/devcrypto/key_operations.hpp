// The arithmetic behind CIOCKEY (OCF's asymmetric interface): modular
// exponentiation, plain and with an RSA private key's CRT components. Where
// the modulus is one of the framework's RSA rows and the framework can take
// the key, the work is a raw RSA operation (RsaPadding::none) on an
// RsaSession, routed by the dispatcher like every other request; anything
// else is computed here with OpenSSL's constant-time BN_mod_exp_mont_consttime
// (docs/devcrypto.md says which path serves what). Numbers are OCF's:
// little-endian byte strings. Every number made here is wiped when it goes.
#pragma once

#include <cstdint>
#include <span>

#include "service.hpp"

namespace cryptoaccel::devcrypto {

// Which way a request was served.
enum class KeyPath : std::uint8_t { framework, server };

struct KeyAnswer {
  int error = 0;  // 0 or a positive errno
  KeyPath path = KeyPath::server;
};

using LittleEndian = std::span<const std::uint8_t>;

// base^exponent mod modulus into `out`, little-endian and zero-padded to
// out.size(). EINVAL, with `out` untouched, for an even modulus or one
// below 2, a base not below the modulus, or an `out` shorter than the
// modulus's bytes; EIO when the framework fails; ENOMEM.
KeyAnswer mod_exp(const Service& service, LittleEndian base, LittleEndian exponent,
                  LittleEndian modulus, std::span<std::uint8_t> out) noexcept;

// x^d mod pq from in = {x, p, q, dP, dQ, qInv}, written as mod_exp writes.
// EINVAL unless p and q are odd, distinct and above 2, x < pq, dP < p - 1
// and dQ < q - 1 are nonzero, qInv = q^-1 mod p, and some d with d = dP mod
// (p - 1) and d = dQ mod (q - 1) has an inverse e modulo lcm(p - 1, q - 1);
// other errors as mod_exp.
KeyAnswer mod_exp_crt(const Service& service, std::span<const LittleEndian, 6> in,
                      std::span<std::uint8_t> out) noexcept;

}  // namespace cryptoaccel::devcrypto
