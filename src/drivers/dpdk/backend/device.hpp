// One DPDK crypto device as the backend keeps it: configured and started
// once per process, with its pools and queue pairs, and never stopped
// (device.cpp says why).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <rte_crypto.h>
#include <rte_cryptodev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "../backend_abi.h"

namespace cryptoaccel::dpdk_backend {

// Where an operation keeps its IV, then (copy mode) its AAD, then the
// index of its job, in the operation's private area.
inline constexpr std::uint16_t kIvOffset =
    sizeof(struct rte_crypto_op) + sizeof(struct rte_crypto_sym_op);
inline constexpr std::uint16_t kIvSpace = 32;
inline constexpr std::uint16_t kAadSpace = 256;  // copy mode: the largest AAD
inline constexpr std::uint16_t kAadOffset = kIvOffset + kIvSpace;
inline constexpr std::uint16_t kIndexOffset = kAadOffset + kAadSpace;
inline constexpr std::uint16_t kPrivateSize = kIvSpace + kAadSpace + 8;

// Copy mode: the largest request, and room for a digest after it.
inline constexpr std::uint32_t kCopyMaxRequest = 32768;
inline constexpr std::uint32_t kDigestSpace = 64;
// By reference, an mbuf's lengths are 16-bit: one block short of 64 KiB.
inline constexpr std::uint32_t kReferenceMaxRequest = 65536 - 64;

struct QueuePair {
  std::uint8_t device = 0;
  std::uint16_t id = 0;
  bool retired = false;  // a burst timed out: its operations may still be queued
  rte_crypto_op* ops[CA_DPDK_MAX_BURST] = {};
  rte_mbuf* source[CA_DPDK_MAX_BURST] = {};
  rte_mbuf* destination[CA_DPDK_MAX_BURST] = {};
};

struct Device {
  bool opened = false;
  bool failed = false;
  int worker_of = -1;  // the scheduler device this one works for
  ca_dpdk_device description{};
  std::uint64_t features = 0;
  rte_mempool* sessions = nullptr;
  rte_mempool* operations = nullptr;
  rte_mempool* buffers = nullptr;
  std::vector<std::unique_ptr<QueuePair>> queue_pairs;

  std::mutex free_mutex;
  std::condition_variable freed;
  std::vector<QueuePair*> free_pairs;
  std::size_t retired = 0;
};

// Device `id`, opened on first use; null when there is none.
Device* open_device(int id);

}  // namespace cryptoaccel::dpdk_backend
