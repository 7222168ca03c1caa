// Self-test at registration: every algorithm a driver claims must reproduce
// a known answer (encrypt and decrypt, seal and open, a tampered tag
// rejected, one-shot and streamed digests) before the dispatcher may use it.
#pragma once

#include <span>
#include <string_view>

#include "cryptoaccel/driver/driver.hpp"
#include "cryptoaccel/framework.hpp"

namespace cryptoaccel::detail {

// One known answer, hex encoded. For AEADs `out` is the ciphertext and `tag`
// the tag; for digests and MACs `out` is the digest. For RSA `key` is
// "n:e:d:p:q:dP:dQ:qInv", `aad` the digest's name, `in` the message's digest and `out`
// its PKCS#1 v1.5 signature.
struct KnownAnswer {
  AlgorithmId algorithm;
  std::string_view key, iv, aad, in, out, tag;
  std::string_view source;  // where the vector comes from
};

// The built-in vectors: exactly one per algorithm (self_test_vectors.cpp).
std::span<const KnownAnswer> known_answers() noexcept;

// Runs the known answer for capability.algorithm on the driver. Never throws.
SelfTestResult self_test(Driver& driver, const Capability& capability);

}  // namespace cryptoaccel::detail
