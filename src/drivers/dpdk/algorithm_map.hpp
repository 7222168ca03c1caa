// The library's algorithms as the backend names them.
#pragma once

#include <cstddef>
#include <optional>

#include "backend_abi.h"
#include "cryptoaccel/algorithm.hpp"

namespace cryptoaccel::dpdk {

// The backend's ca_dpdk_algorithm for `id`, or nothing where DPDK has none.
std::optional<int> backend_algorithm(AlgorithmId id);

// The plain digest an HMAC of the backend's is built on (CA_DPDK_HMAC_SHA256:
// CA_DPDK_SHA256); nothing for an algorithm that is no HMAC.
std::optional<int> plain_digest_of(int hmac);

// Does a length range as DPDK states it (min, max, the step between; step
// 0: min only) hold `n`?
bool accepts(const ca_dpdk_range& range, std::size_t n);

}  // namespace cryptoaccel::dpdk
