// The seed source CRYPTOACCEL-SEED (rand_seed.cpp, docs/rng.md).
#pragma once

#include <openssl/core.h>

namespace cryptoaccel::provider {

inline constexpr const char* kSeedName = "CRYPTOACCEL-SEED";

// The OSSL_OP_RAND functions of CRYPTOACCEL-SEED.
const OSSL_DISPATCH* seed_functions() noexcept;

}  // namespace cryptoaccel::provider
