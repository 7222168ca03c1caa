// A device's DPDK sessions, from pools that grow with use. Each key and
// shape a process meets takes one session (a TLS server: a few per
// connection), so a fixed pool would refuse the thousandth connection; a
// full pool is followed by another of the same size, for as long as EAL's
// memory (-m, or the hugepages) lasts.
//
// Sessions are made and freed under a mutex that sleeps: DPDK's mempool
// rings and its heap spin on one another's progress, which a thread that
// is no EAL lcore may lose to preemption (with more threads than CPUs,
// batches stalled for seconds behind a preempted thread's half-made
// session).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <rte_crypto_sym.h>
#include <rte_mempool.h>

namespace cryptoaccel::dpdk_backend {

class SessionPools {
 public:
  static constexpr unsigned kSessionsPerPool = 4096;

  // The first pool, made as the device opens; false when EAL's memory
  // cannot hold it.
  bool start(std::uint8_t device, int socket);
  rte_mempool* first() const noexcept { return pools_.empty() ? nullptr : pools_.front(); }

  // A session of `xform` on the device; null with `why` set when none can
  // be had (`why` names EAL's memory when the pools can grow no more).
  void* create(rte_crypto_sym_xform& xform, std::string& why);
  void free(void* session);

 private:
  rte_mempool* add_pool();

  std::uint8_t device_ = 0;
  int socket_ = 0;
  std::mutex mutex_;
  std::vector<rte_mempool*> pools_;
};

}  // namespace cryptoaccel::dpdk_backend
