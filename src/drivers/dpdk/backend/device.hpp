// One DPDK crypto device as the backend keeps it: configured and started
// once per process, with its pools and queue pairs, and never stopped
// (device.cpp says why).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include <rte_crypto.h>
#include <rte_cryptodev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "../backend_abi.h"
#include "queue_pair_pool.hpp"
#include "session_pools.hpp"

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

struct Device;

struct QueuePair {
  Device* owner = nullptr;
  std::uint8_t device = 0;
  std::uint16_t id = 0;
  bool retired = false;  // a burst timed out: its operations may still be queued
  rte_crypto_op* ops[CA_DPDK_MAX_BURST] = {};
  rte_mbuf* source[CA_DPDK_MAX_BURST] = {};
  rte_mbuf* destination[CA_DPDK_MAX_BURST] = {};
  // The kind of transform each operation was last filled for: an operation
  // filled for the same kind again has every other field still zero.
  int filled_as[CA_DPDK_MAX_BURST] = {};
  // The one kind any operation of the pair has been filled for (an
  // operation never filled is all zero, good for any kind): while there is
  // one, no operation needs its other kind's fields zeroed, nor checking.
  // kNoKindYet before the first burst, kMixedKinds once a second kind came.
  int only_kind = kNoKindYet;
  static constexpr int kNoKindYet = -1, kMixedKinds = -2;
  // An operation's first word as a burst sets it: symmetric, not processed,
  // with a session.
  std::uint64_t fresh_op_word = 0;
};

struct Device {
  std::atomic<bool> opened{false};
  bool failed = false;
  int worker_of = -1;  // the scheduler device this one works for
  ca_dpdk_device description{};
  std::uint64_t features = 0;
  bool virtual_addresses = false;  // EAL's IOVA mode is VA: an address is its IOVA
  SessionPools sessions;
  rte_mempool* operations = nullptr;
  rte_mempool* buffers = nullptr;
  std::vector<std::unique_ptr<QueuePair>> queue_pairs;
  QueuePairPool free_pairs;
};

// Device `id`, opened on first use; null when there is none.
Device* open_device(int id);

}  // namespace cryptoaccel::dpdk_backend
