// Queue pairs and bursts. A queue pair is DPDK's unit of thread safety: the
// thread that acquired one is its only user until it gives it back. A burst
// fills the pair's own operations (allocated once, when the device opened)
// from the jobs, enqueues them all and polls until every one is back or the
// deadline passes; a pair whose burst timed out is retired, since the
// device may still hold its operations.
#include "run.hpp"

#include <time.h>

#include <cstring>

#include <rte_cryptodev.h>
#include <rte_eal.h>

#include "algorithms.hpp"
#include "eal.hpp"

namespace cryptoaccel::dpdk_backend {
namespace {

std::uint8_t zero_length_target[64];

std::uint64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1000000000u + static_cast<std::uint64_t>(t.tv_nsec);
}

rte_iova_t iova_of(const void* p) {
  // Fixed once EAL has started; asked per buffer it cost 2% of a small
  // request's time.
  static const bool virtual_addresses = rte_eal_iova_mode() == RTE_IOVA_VA;
  return virtual_addresses ? static_cast<rte_iova_t>(reinterpret_cast<std::uintptr_t>(p))
                           : RTE_BAD_IOVA;
}

// An mbuf that is `length` bytes of the caller's memory (by reference).
void point_at(rte_mbuf* m, const std::uint8_t* data, std::uint32_t length) {
  void* address = const_cast<std::uint8_t*>(length != 0 ? data : zero_length_target);
  m->buf_addr = address;
  m->buf_iova = iova_of(address);
  m->buf_len = static_cast<std::uint16_t>(length);
  m->data_off = 0;
  m->data_len = static_cast<std::uint16_t>(length);
  m->pkt_len = length;
  m->nb_segs = 1;
  m->next = nullptr;
}

// An mbuf of the device's pool holding a copy of `length` bytes.
void copy_into(rte_mbuf* m, const std::uint8_t* data, std::uint32_t length) {
  rte_pktmbuf_reset(m);
  m->data_len = static_cast<std::uint16_t>(length);
  m->pkt_len = length;
  if (length != 0) std::memcpy(rte_pktmbuf_mtod(m, std::uint8_t*), data, length);
}

// Fills operation `i` of `pair` from `job`.
void fill(Device& device, QueuePair& pair, std::size_t i, const ca_dpdk_job& job) {
  const auto& session = *static_cast<const Session*>(job.session);
  rte_crypto_op* op = pair.ops[i];
  op->status = RTE_CRYPTO_OP_STATUS_NOT_PROCESSED;
  op->sess_type = RTE_CRYPTO_OP_WITH_SESSION;
  rte_crypto_sym_op* sym = op->sym;
  // Every field, also those of the other kinds: a PMD reads some of a
  // cipher operation's auth fields (the out-of-place copy of aesni_mb).
  std::memset(static_cast<void*>(sym), 0, sizeof *sym);
  sym->session = session.dpdk;
  *rte_crypto_op_ctod_offset(op, std::uint32_t*, kIndexOffset) = static_cast<std::uint32_t>(i);
  if (session.iv_length != 0)
    std::memcpy(rte_crypto_op_ctod_offset(op, std::uint8_t*, kIvOffset), job.iv, session.iv_length);

  const bool by_reference = device.description.by_reference != 0;
  const bool in_place = job.out == nullptr || job.out == job.in;
  rte_mbuf* source = pair.source[i];
  sym->m_dst = nullptr;
  std::uint8_t* digest = job.digest;
  rte_iova_t digest_iova = 0;
  if (by_reference) {
    if (!in_place && (device.features & RTE_CRYPTODEV_FF_OOP_LB_IN_LB_OUT) == 0) {
      // No out-of-place here: copy, then work in place on the output.
      std::memmove(job.out, job.in, job.length);
      point_at(source, job.out, job.length);
    } else {
      point_at(source, job.in, job.length);
      if (!in_place) {
        point_at(pair.destination[i], job.out, job.length);
        sym->m_dst = pair.destination[i];
      }
    }
    digest_iova = iova_of(digest);
  } else {
    copy_into(source, job.in, job.length);
    // The digest goes after the data, in memory the device can reach.
    digest = rte_pktmbuf_mtod_offset(source, std::uint8_t*, job.length);
    digest_iova = rte_pktmbuf_iova_offset(source, job.length);
    if (session.type == RTE_CRYPTO_SYM_XFORM_AEAD && session.direction == CA_DPDK_DECRYPT)
      std::memcpy(digest, job.digest, session.digest_length);
  }
  sym->m_src = source;

  switch (session.type) {
    case RTE_CRYPTO_SYM_XFORM_CIPHER:
      sym->cipher.data.offset = 0;
      sym->cipher.data.length = job.length;
      break;
    case RTE_CRYPTO_SYM_XFORM_AUTH:
      sym->auth.data.offset = 0;
      sym->auth.data.length = job.length;
      sym->auth.digest.data = digest;
      sym->auth.digest.phys_addr = digest_iova;
      break;
    case RTE_CRYPTO_SYM_XFORM_AEAD: {
      sym->aead.data.offset = 0;
      sym->aead.data.length = job.length;
      sym->aead.digest.data = digest;
      sym->aead.digest.phys_addr = digest_iova;
      if (by_reference) {
        sym->aead.aad.data =
            const_cast<std::uint8_t*>(job.aad != nullptr ? job.aad : zero_length_target);
        sym->aead.aad.phys_addr = iova_of(sym->aead.aad.data);
      } else {
        auto* aad = rte_crypto_op_ctod_offset(op, std::uint8_t*, kAadOffset);
        if (session.aad_length != 0) std::memcpy(aad, job.aad, session.aad_length);
        sym->aead.aad.data = aad;
        sym->aead.aad.phys_addr = rte_crypto_op_ctophys_offset(op, kAadOffset);
      }
      break;
    }
    default:
      break;
  }
}

// Copies a finished operation's results back to its job.
void finish(Device& device, QueuePair& pair, rte_crypto_op* op, ca_dpdk_job* jobs,
            std::size_t count) {
  const std::uint32_t i = *rte_crypto_op_ctod_offset(op, std::uint32_t*, kIndexOffset);
  if (i >= count || pair.ops[i] != op) return;
  ca_dpdk_job& job = jobs[i];
  switch (op->status) {
    case RTE_CRYPTO_OP_STATUS_SUCCESS:
      job.status = CA_DPDK_OK;
      break;
    case RTE_CRYPTO_OP_STATUS_AUTH_FAILED:
      job.status = CA_DPDK_AUTH_FAILED;
      return;
    default:
      job.status = CA_DPDK_FAILED;
      return;
  }
  if (device.description.by_reference) return;
  const auto& session = *static_cast<const Session*>(job.session);
  const auto* data = rte_pktmbuf_mtod(pair.source[i], const std::uint8_t*);
  if (session.type != RTE_CRYPTO_SYM_XFORM_AUTH && job.length != 0)
    std::memcpy(job.out, data, job.length);
  const bool writes_digest =
      session.type == RTE_CRYPTO_SYM_XFORM_AUTH ||
      (session.type == RTE_CRYPTO_SYM_XFORM_AEAD && session.direction == CA_DPDK_ENCRYPT);
  if (writes_digest) std::memcpy(job.digest, data + job.length, session.digest_length);
}

}  // namespace

void* acquire_queue_pair(int id) {
  if (!eal_usable_here()) return nullptr;
  Device* device = open_device(id);
  if (device == nullptr || device->failed) return nullptr;
  std::unique_lock lock(device->free_mutex);
  device->freed.wait(lock, [&] {
    return !device->free_pairs.empty() || device->retired == device->queue_pairs.size();
  });
  if (device->free_pairs.empty()) return nullptr;
  QueuePair* pair = device->free_pairs.back();
  device->free_pairs.pop_back();
  return pair;
}

void release_queue_pair(void* handle) {
  auto* pair = static_cast<QueuePair*>(handle);
  if (pair == nullptr) return;
  Device* device = open_device(pair->device);
  {
    const std::lock_guard lock(device->free_mutex);
    if (pair->retired)
      ++device->retired;
    else
      device->free_pairs.push_back(pair);
  }
  // Every waiter learns of the last pair retiring: none would be woken
  // again after it.
  if (pair->retired)
    device->freed.notify_all();
  else
    device->freed.notify_one();
}

std::size_t run_burst(void* handle, ca_dpdk_job* jobs, std::size_t count,
                      std::uint64_t deadline_ns) {
  auto* pair = static_cast<QueuePair*>(handle);
  if (pair == nullptr || pair->retired || count > CA_DPDK_MAX_BURST) return 0;
  Device& device = *open_device(pair->device);
  for (std::size_t i = 0; i < count; ++i) {
    jobs[i].status = CA_DPDK_TIMED_OUT;
    fill(device, *pair, i, jobs[i]);
  }
  const std::uint64_t give_up = now_ns() + deadline_ns;
  std::size_t enqueued = 0, done = 0;
  rte_crypto_op* back[CA_DPDK_MAX_BURST];
  unsigned idle = 0;
  while (done < count) {
    if (enqueued < count)
      enqueued += rte_cryptodev_enqueue_burst(pair->device, pair->id, pair->ops + enqueued,
                                              static_cast<std::uint16_t>(count - enqueued));
    const std::uint16_t n = rte_cryptodev_dequeue_burst(pair->device, pair->id, back,
                                                        static_cast<std::uint16_t>(count - done));
    for (std::uint16_t k = 0; k < n; ++k) finish(device, *pair, back[k], jobs, count);
    done += n;
    if (n != 0) {
      idle = 0;
      continue;
    }
    // A device that computes in the caller's thread is done at once; one
    // that DMAs is given the CPU between polls, and a deadline.
    if ((++idle & 63) == 0 && now_ns() > give_up) {
      pair->retired = true;
      break;
    }
  }
  std::size_t completed = 0;
  for (std::size_t i = 0; i < count; ++i) completed += jobs[i].status != CA_DPDK_TIMED_OUT;
  return completed;
}

}  // namespace cryptoaccel::dpdk_backend
