// The backend is looked for next to the object this code is part of (the
// build tree, or a distribution that keeps them together), then where
// `make install` puts it, then where this build made it. It stays loaded
// for the life of the process: DPDK's threads run its code.
#include "backend_loader.hpp"

#include <dlfcn.h>

#include <mutex>
#include <string>
#include <vector>

#include "cryptoaccel/version.hpp"

namespace cryptoaccel::dpdk {
namespace {

constexpr const char* kFileName = "cryptoaccel-dpdk.so";

std::string own_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&load_backend), &info) == 0 || info.dli_fname == nullptr)
    return {};
  const std::string file = info.dli_fname;
  const auto slash = file.rfind('/');
  return slash == std::string::npos ? std::string() : file.substr(0, slash);
}

std::vector<std::string> candidates() {
  std::vector<std::string> paths;
  if (const std::string dir = own_directory(); !dir.empty()) paths.push_back(dir + "/" + kFileName);
  paths.emplace_back(CRYPTOACCEL_DPDK_BACKEND_INSTALLED);
#ifdef CRYPTOACCEL_DPDK_BACKEND_BUILT
  paths.emplace_back(CRYPTOACCEL_DPDK_BACKEND_BUILT);
#endif
  return paths;
}

LoadedBackend load() {
  LoadedBackend loaded;
  std::string tried;
  for (const std::string& path : candidates()) {
    // RTLD_NODELETE: DPDK's threads run the backend's code until exit.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == nullptr) {
      const char* error = dlerror();
      if (!tried.empty()) tried += "; ";
      tried += error != nullptr ? error : path;
      continue;
    }
    auto entry = reinterpret_cast<ca_dpdk_backend_entry>(dlsym(handle, CA_DPDK_BACKEND_SYMBOL));
    const ca_dpdk_backend* backend = entry != nullptr ? entry() : nullptr;
    if (backend == nullptr || std::string(backend->version) != CRYPTOACCEL_VERSION_STRING
                                  "/abi" CA_DPDK_ABI_REVISION) {
      loaded.reason = path + " is not the DPDK backend of cryptoaccel " CRYPTOACCEL_VERSION_STRING;
      return loaded;
    }
    loaded.backend = backend;
    loaded.path = path;
    return loaded;
  }
  loaded.reason = "cannot load " + std::string(kFileName) + " (" + tried + ")";
  return loaded;
}

}  // namespace

const LoadedBackend& load_backend() {
  static const LoadedBackend loaded = load();
  return loaded;
}

}  // namespace cryptoaccel::dpdk
