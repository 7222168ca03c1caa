// Finding and loading cryptoaccel-dpdk.so, the only object that links DPDK
// (backend_abi.h says why it is apart).
#pragma once

#include <string>

#include "backend_abi.h"

namespace cryptoaccel::dpdk {

struct LoadedBackend {
  const ca_dpdk_backend* backend = nullptr;  // null: `reason` says why
  std::string path;
  std::string reason;
};

// Loads the backend once per process (later calls return the same).
const LoadedBackend& load_backend();

}  // namespace cryptoaccel::dpdk
