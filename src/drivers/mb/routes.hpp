// The algorithms the mb driver serves and which of libipsec-mb's entry
// points serves each: a cipher burst (CBC, CTR), a hash burst (HMAC), or
// the job API (GCM, plain SHA digests), which takes any mix.
#pragma once

#include <intel-ipsec-mb.h>

#include <cstddef>
#include <optional>

#include "cryptoaccel/algorithm.hpp"

namespace cryptoaccel::mb {

enum class Family : std::uint8_t { cbc, ctr, gcm, hmac, digest };

struct Route {
  AlgorithmId algorithm;
  Family family;
  IMB_KEY_SIZE_BYTES key_size = IMB_KEY_128_BYTES;  // AES families
  IMB_HASH_ALG hash = IMB_AUTH_NULL;                // hmac, digest
};

// The route of `algorithm`, or nothing when the driver does not serve it.
std::optional<Route> route_of(AlgorithmId algorithm) noexcept;

}  // namespace cryptoaccel::mb
