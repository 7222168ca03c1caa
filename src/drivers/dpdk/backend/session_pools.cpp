#include "session_pools.hpp"

#include <rte_cryptodev.h>
#include <rte_errno.h>

namespace cryptoaccel::dpdk_backend {

rte_mempool* SessionPools::add_pool() {
  const std::string name =
      "ca_sess" + std::to_string(device_) + "_" + std::to_string(pools_.size());
  rte_mempool* pool = rte_cryptodev_sym_session_pool_create(
      name.c_str(), kSessionsPerPool, rte_cryptodev_sym_get_private_session_size(device_), 0, 0,
      socket_);
  if (pool == nullptr) return nullptr;
  pools_.push_back(pool);
  return pool;
}

bool SessionPools::start(std::uint8_t device, int socket) {
  device_ = device;
  socket_ = socket;
  const std::lock_guard lock(mutex_);
  return add_pool() != nullptr;
}

void* SessionPools::create(rte_crypto_sym_xform& xform, std::string& why) {
  const std::lock_guard lock(mutex_);
  // The newest pool first; an older one may have room again (sessions go
  // back to the pool they came from); else another pool.
  for (auto it = pools_.rbegin(); it != pools_.rend(); ++it) {
    if (void* s = rte_cryptodev_sym_session_create(device_, &xform, *it)) return s;
    if (rte_errno != ENOMEM) {
      why = std::string("rte_cryptodev_sym_session_create: ") + rte_strerror(rte_errno);
      return nullptr;
    }
  }
  rte_mempool* grown = add_pool();
  if (grown == nullptr) {
    why = "out of DPDK memory for sessions (" +
          std::to_string(pools_.size() * std::size_t{kSessionsPerPool}) +
          " in use; EAL's -m or hugepages too small?)";
    return nullptr;
  }
  if (void* s = rte_cryptodev_sym_session_create(device_, &xform, grown)) return s;
  why = std::string("rte_cryptodev_sym_session_create: ") + rte_strerror(rte_errno);
  return nullptr;
}

void SessionPools::free(void* session) {
  const std::lock_guard lock(mutex_);
  rte_cryptodev_sym_session_free(device_, session);
}

}  // namespace cryptoaccel::dpdk_backend
