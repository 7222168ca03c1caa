// Queue pairs and bursts. A queue pair is DPDK's unit of thread safety: the
// thread that acquired one is its only user until it gives it back. A burst
// fills the pair's own operations (allocated once, when the device opened)
// from the jobs, enqueues them all and polls until every one is back or the
// deadline passes; a pair whose burst timed out is retired, since the
// device may still hold its operations.
#include "run.hpp"

#include <pthread.h>
#include <time.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>
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

// The IV into the operation: a copy of constant size for the common
// lengths, which the compiler makes two moves (a call to memcpy per
// request cost more than the rest of filling the operation).
void copy_iv(std::uint8_t* to, const std::uint8_t* from, std::uint32_t length) {
  switch (length) {
    case 16:
      std::memcpy(to, from, 16);
      break;
    case 12:
      std::memcpy(to, from, 12);
      break;
    default:
      std::memcpy(to, from, length);
  }
}

// An mbuf of the device's pool holding a copy of `length` bytes.
void copy_into(rte_mbuf* m, const std::uint8_t* data, std::uint32_t length) {
  rte_pktmbuf_reset(m);
  m->data_len = static_cast<std::uint16_t>(length);
  m->pkt_len = length;
  if (length != 0) std::memcpy(rte_pktmbuf_mtod(m, std::uint8_t*), data, length);
}

// What a burst reads of its device, copied once into registers: the stores
// into each operation may alias anything, and reloading these after each
// one cost a small request a nanosecond.
struct BurstSetting {
  bool by_reference;
  bool out_of_place;  // the device writes elsewhere than it reads
  bool virtual_addresses;
  std::uint64_t fresh_op_word;  // type, status "not processed", session type
};

rte_iova_t iova_of(const BurstSetting& b, const void* p) {
  return b.virtual_addresses ? static_cast<rte_iova_t>(reinterpret_cast<std::uintptr_t>(p))
                             : RTE_BAD_IOVA;
}

// An mbuf that is `length` bytes of the caller's memory (by reference).
// Its segment count, chain and data offset were set once (prepare()).
void point_at(const BurstSetting& b, rte_mbuf* m, const std::uint8_t* data, std::uint32_t length) {
  void* address = const_cast<std::uint8_t*>(length != 0 ? data : zero_length_target);
  m->buf_addr = address;
  m->buf_iova = iova_of(b, address);
  m->buf_len = static_cast<std::uint16_t>(length);
  m->data_len = static_cast<std::uint16_t>(length);
  m->pkt_len = length;
}

// A field of one of the library's requests, read through its layout
// (memcpy: the backend knows the fields' places, not their C++ types).
template <typename T>
T field_at(const std::byte* request, std::size_t offset) {
  T value;
  std::memcpy(&value, request + offset, sizeof value);
  return value;
}

// Do a request's input and output share bytes without being the same?
bool overlap(const std::uint8_t* in_at, const std::uint8_t* out_at, std::uint32_t length) {
  const auto in = reinterpret_cast<std::uintptr_t>(in_at);
  const auto out = reinterpret_cast<std::uintptr_t>(out_at);
  return in != out && in < out + length && out < in + length;
}

// Fills operation `i` of `pair` from `request`, whose session is
// `session`, of kind `kType`, on a device that reads the caller's memory
// (kByReference) or not. Both are template parameters so that a run of
// requests is filled without a branch on either per request.
template <rte_crypto_sym_xform_type kType, bool kByReference>
void fill(const BurstSetting& b, const Session& session, const ca_dpdk_request_layout& layout,
          QueuePair& pair, std::size_t i, const std::byte* request) {
  rte_crypto_op* op = pair.ops[i];
  op->raw = b.fresh_op_word;
  rte_crypto_sym_op* sym = op->sym;
  // Every field, also those of the other kinds, since a PMD reads some of
  // a cipher operation's auth fields (the out-of-place copy of aesni_mb):
  // zeroed whenever the kind changes, and otherwise still zero.
  if (pair.only_kind == QueuePair::kMixedKinds && pair.filled_as[i] != kType) {
    std::memset(static_cast<void*>(sym), 0, sizeof *sym);
    pair.filled_as[i] = kType;
  }
  sym->session = session.dpdk;
  if (session.iv_length != 0)
    copy_iv(rte_crypto_op_ctod_offset(op, std::uint8_t*, kIvOffset),
            field_at<const std::uint8_t*>(request, layout.iv), session.iv_length);

  constexpr bool hashes = kType == RTE_CRYPTO_SYM_XFORM_AUTH;
  const auto* in = field_at<const std::uint8_t*>(request, layout.in);
  const auto length = static_cast<std::uint32_t>(field_at<std::size_t>(request, layout.in_length));
  auto* out = hashes ? nullptr : field_at<std::uint8_t*>(request, layout.out);
  const bool in_place = hashes || out == in;
  rte_mbuf* source = pair.source[i];
  rte_mbuf* destination = nullptr;
  std::uint8_t* digest = nullptr;
  rte_iova_t digest_iova = 0;
  if constexpr (kByReference) {
    if (in_place) {
      point_at(b, source, in, length);
    } else if (!b.out_of_place || overlap(in, out, length)) {
      // No out-of-place here, or an output that overlaps the input (the
      // provider hands on a decryption's held-back bytes that way), which
      // a PMD may read after writing: copy, then work in place on the
      // output.
      std::memmove(out, in, length);
      point_at(b, source, out, length);
    } else {
      point_at(b, source, in, length);
      destination = pair.destination[i];
      point_at(b, destination, out, length);
    }
    if constexpr (kType != RTE_CRYPTO_SYM_XFORM_CIPHER) {
      digest = field_at<std::uint8_t*>(request, layout.digest);
      digest_iova = iova_of(b, digest);
    }
  } else {
    copy_into(source, in, length);
    // The digest goes after the data, in memory the device can reach.
    digest = rte_pktmbuf_mtod_offset(source, std::uint8_t*, length);
    digest_iova = rte_pktmbuf_iova_offset(source, length);
    if (kType == RTE_CRYPTO_SYM_XFORM_AEAD && session.direction == CA_DPDK_DECRYPT)
      std::memcpy(digest, field_at<const std::uint8_t*>(request, layout.digest),
                  session.digest_length);
  }
  sym->m_src = source;
  sym->m_dst = destination;

  switch (kType) {
    case RTE_CRYPTO_SYM_XFORM_CIPHER:
      sym->cipher.data.offset = 0;
      sym->cipher.data.length = length;
      break;
    case RTE_CRYPTO_SYM_XFORM_AUTH:
      sym->auth.data.offset = 0;
      sym->auth.data.length = length;
      sym->auth.digest.data = digest;
      sym->auth.digest.phys_addr = digest_iova;
      break;
    case RTE_CRYPTO_SYM_XFORM_AEAD: {
      sym->aead.data.offset = 0;
      sym->aead.data.length = length;
      sym->aead.digest.data = digest;
      sym->aead.digest.phys_addr = digest_iova;
      const auto* aad_in = session.aad_length != 0
                               ? field_at<const std::uint8_t*>(request, layout.aad)
                               : zero_length_target;
      if constexpr (kByReference) {
        sym->aead.aad.data = const_cast<std::uint8_t*>(aad_in);
        sym->aead.aad.phys_addr = iova_of(b, sym->aead.aad.data);
      } else {
        auto* aad = rte_crypto_op_ctod_offset(op, std::uint8_t*, kAadOffset);
        if (session.aad_length != 0) std::memcpy(aad, aad_in, session.aad_length);
        sym->aead.aad.data = aad;
        sym->aead.aad.phys_addr = rte_crypto_op_ctophys_offset(op, kAadOffset);
      }
      break;
    }
    default:
      break;
  }
}

template <rte_crypto_sym_xform_type kType, bool kByReference>
void fill_run(const BurstSetting& b, const Session& session, const ca_dpdk_request_layout& layout,
              QueuePair& pair, const std::byte* requests, std::size_t count) {
  if (pair.only_kind == QueuePair::kNoKindYet) pair.only_kind = kType;
  // A second kind: from now on each operation remembers its own (the ones
  // filled before are taken for any kind, and zeroed once more).
  if (pair.only_kind != kType) pair.only_kind = QueuePair::kMixedKinds;
  for (std::size_t i = 0; i < count; ++i, requests += layout.stride)
    fill<kType, kByReference>(b, session, layout, pair, i, requests);
}

using FillRun = void (*)(const BurstSetting&, const Session&, const ca_dpdk_request_layout&,
                         QueuePair&, const std::byte*, std::size_t);

template <bool kByReference>
FillRun fill_run_for(rte_crypto_sym_xform_type type) {
  switch (type) {
    case RTE_CRYPTO_SYM_XFORM_CIPHER:
      return fill_run<RTE_CRYPTO_SYM_XFORM_CIPHER, kByReference>;
    case RTE_CRYPTO_SYM_XFORM_AUTH:
      return fill_run<RTE_CRYPTO_SYM_XFORM_AUTH, kByReference>;
    default:
      return fill_run<RTE_CRYPTO_SYM_XFORM_AEAD, kByReference>;
  }
}

// Copies a finished operation's results back to its request, marks it in
// `finished` and counts it in `unsuccessful` if it failed; false for an
// operation that is none of this burst's, or one returned twice. `expected`
// is its index when the device returns operations in order, as most do;
// otherwise the index is read from the operation's private area (another
// cache line). A failed operation's status stays in the operation, for
// run_burst() to report.
bool finish(const Device& device, const Session& session, const ca_dpdk_request_layout& layout,
            const QueuePair& pair, rte_crypto_op* op, std::size_t expected,
            const std::byte* requests, std::size_t count, std::uint64_t& finished,
            std::size_t& unsuccessful) {
  std::size_t i = expected;
  if (i >= count || pair.ops[i] != op) {
    i = *rte_crypto_op_ctod_offset(op, std::uint32_t*, kIndexOffset);
    if (i >= count || pair.ops[i] != op) return false;
  }
  const std::uint64_t bit = std::uint64_t{1} << i;
  if ((finished & bit) != 0) return false;
  finished |= bit;
  if (op->status != RTE_CRYPTO_OP_STATUS_SUCCESS) {
    ++unsuccessful;
    return true;
  }
  if (device.description.by_reference) return true;
  const std::byte* request = requests + i * layout.stride;
  const auto length = field_at<std::size_t>(request, layout.in_length);
  const auto* data = rte_pktmbuf_mtod(pair.source[i], const std::uint8_t*);
  if (session.type != RTE_CRYPTO_SYM_XFORM_AUTH && length != 0)
    std::memcpy(field_at<std::uint8_t*>(request, layout.out), data, length);
  const bool writes_digest =
      session.type == RTE_CRYPTO_SYM_XFORM_AUTH ||
      (session.type == RTE_CRYPTO_SYM_XFORM_AEAD && session.direction == CA_DPDK_ENCRYPT);
  if (writes_digest)
    std::memcpy(field_at<std::uint8_t*>(request, layout.digest), data + length,
                session.digest_length);
  return true;
}

int status_of(const rte_crypto_op& op) {
  switch (op.status) {
    case RTE_CRYPTO_OP_STATUS_SUCCESS:
      return CA_DPDK_OK;
    case RTE_CRYPTO_OP_STATUS_AUTH_FAILED:
      return CA_DPDK_AUTH_FAILED;
    default:
      return CA_DPDK_FAILED;  // also one the device refused, never processed
  }
}

// Bits [from, from + n) of a burst's mask.
std::uint64_t bits(std::size_t from, std::size_t n) {
  if (n == 0) return 0;
  const std::uint64_t run = n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
  return run << from;
}

// DPDK's CPU crypto API (rte_cryptodev_sym_cpu_crypto_process) on the
// ipsec_mb PMDs gives each thread that calls it a job manager of its own,
// about 200 KB, which it never frees: a process whose threads come and go
// (a thread per connection) would leak one per thread. The first
// kSynchronousThreads threads of a process that bring an in-place burst
// may use it; the others go through queue pairs, whose managers are the
// device's. The slots are never given back, as DPDK never gives the
// memory back.
constexpr unsigned kSynchronousThreads = 64;
std::atomic<unsigned> synchronous_threads_granted{0};

// Making that manager, on a thread's first call, takes some 23 KB of the
// thread's stack, where a queue pair's burst takes less than 16 KB (a
// thread made with PTHREAD_STACK_MIN crashed): a thread with less than
// this left below the caller is not granted the API.
constexpr std::size_t kSynchronousStack = 64 * 1024;

// Whether this thread may, kept in a pthread key: a thread_local of this
// dlopen()ed module costs a call to __tls_get_addr on each use, about a
// nanosecond of a 256-byte request's time in a burst of 32.
pthread_key_t synchronous_key;
const bool synchronous_key_made = pthread_key_create(&synchronous_key, nullptr) == 0;
constexpr std::uintptr_t kUndecided = 0, kMay = 1, kMayNot = 2;

std::uintptr_t synchronous_verdict_here() {
  return synchronous_key_made
             ? reinterpret_cast<std::uintptr_t>(pthread_getspecific(synchronous_key))
             : kMayNot;
}

// How much of this thread's stack lies below the caller's frame; 0 when
// it cannot be told.
std::size_t stack_left_here() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
  void* lowest = nullptr;
  std::size_t size = 0;
  const bool known = pthread_attr_getstack(&attr, &lowest, &size) == 0;
  pthread_attr_destroy(&attr);
  const auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  const auto bottom = reinterpret_cast<std::uintptr_t>(lowest);
  return known && here > bottom ? here - bottom : 0;
}

// Decides, once per thread, whether it may use the API.
bool grant_synchronous_here() {
  std::uintptr_t verdict = kMayNot;
  if (stack_left_here() >= kSynchronousStack) {
    unsigned granted = synchronous_threads_granted.load(std::memory_order_relaxed);
    while (granted < kSynchronousThreads)
      if (synchronous_threads_granted.compare_exchange_weak(granted, granted + 1,
                                                            std::memory_order_relaxed)) {
        verdict = kMay;
        break;
      }
  }
  if (pthread_setspecific(synchronous_key, reinterpret_cast<void*>(verdict)) != 0) {
    // No memory for the key: this thread is asked again next time, so its
    // slot goes back rather than be counted twice.
    if (verdict == kMay) synchronous_threads_granted.fetch_sub(1, std::memory_order_relaxed);
    return false;
  }
  return verdict == kMay;
}

// A burst's vectors for the CPU crypto API, on the caller's stack.
struct SynchronousBurst {
  rte_crypto_vec data[CA_DPDK_MAX_BURST];
  rte_crypto_sgl lists[CA_DPDK_MAX_BURST];
  rte_crypto_va_iova_ptr ivs[CA_DPDK_MAX_BURST], digests[CA_DPDK_MAX_BURST],
      aads[CA_DPDK_MAX_BURST];
  std::int32_t results[CA_DPDK_MAX_BURST];
};

// For the fields a burst's kind does not use.
const std::array<rte_crypto_va_iova_ptr, CA_DPDK_MAX_BURST> kNowhere = [] {
  std::array<rte_crypto_va_iova_ptr, CA_DPDK_MAX_BURST> a{};
  for (auto& p : a) p.va = zero_length_target;
  return a;
}();

// Sets `burst`'s vectors from the requests; false, having stopped, at a
// request that is not in place: the API works in place only, and such a
// burst goes through a queue pair, where the PMD writes the output there.
template <rte_crypto_sym_xform_type kType>
bool describe(SynchronousBurst& burst, const Session& session, const ca_dpdk_request_layout& layout,
              const std::byte* request, std::size_t count) {
  const ca_dpdk_request_layout l = layout;  // in registers, as fill() does
  const bool has_iv = session.iv_length != 0, has_aad = session.aad_length != 0;
  for (std::size_t i = 0; i < count; ++i, request += l.stride) {
    auto* in = field_at<std::uint8_t*>(request, l.in);
    const auto length = static_cast<std::uint32_t>(field_at<std::size_t>(request, l.in_length));
    if (kType != RTE_CRYPTO_SYM_XFORM_AUTH && field_at<std::uint8_t*>(request, l.out) != in)
      return false;
    rte_crypto_vec& d = burst.data[i];
    d.base = length != 0 ? in : zero_length_target;
    d.len = length;
    d.tot_len = length;
    burst.lists[i] = {.vec = &d, .num = 1};
    if (kType != RTE_CRYPTO_SYM_XFORM_AUTH && has_iv)
      burst.ivs[i].va = field_at<std::uint8_t*>(request, l.iv);
    if (kType != RTE_CRYPTO_SYM_XFORM_CIPHER)
      burst.digests[i].va = field_at<std::uint8_t*>(request, l.digest);
    if (kType == RTE_CRYPTO_SYM_XFORM_AEAD && has_aad)
      burst.aads[i].va = field_at<std::uint8_t*>(request, l.aad);
    burst.results[i] = -EIO;  // what a request says that the PMD never reached (no manager)
  }
  return true;
}

// What CPU crypto says of one request: 0, or an errno (negative for a
// request the PMD refused before computing); EBADMSG is a tag that did not
// verify when the session verifies one, and a job that failed otherwise.
int synchronous_status(std::int32_t status, const Session& session) {
  if (status == 0) return CA_DPDK_OK;
  const bool verifies =
      session.type == RTE_CRYPTO_SYM_XFORM_AEAD && session.direction == CA_DPDK_DECRYPT;
  return status == EBADMSG && verifies ? CA_DPDK_AUTH_FAILED : CA_DPDK_FAILED;
}

}  // namespace

int run_synchronous(int id, void* session_handle, const void* requests,
                    const ca_dpdk_request_layout* layout_handle, std::size_t count, int* statuses,
                    std::size_t* succeeded) {
  if (session_handle == nullptr || count == 0 || count > CA_DPDK_MAX_BURST || !eal_usable_here())
    return -1;
  const std::uintptr_t verdict = synchronous_verdict_here();
  if (verdict == kMayNot) return -1;
  const Device* device = open_device(id);
  if (device == nullptr || device->failed || device->description.synchronous == 0) return -1;
  const Session session = *static_cast<const Session*>(session_handle);
  SynchronousBurst burst;  // every field a burst uses is set by describe()
  const auto* first = static_cast<const std::byte*>(requests);
  bool in_place = false;
  switch (session.type) {
    case RTE_CRYPTO_SYM_XFORM_CIPHER:
      in_place =
          describe<RTE_CRYPTO_SYM_XFORM_CIPHER>(burst, session, *layout_handle, first, count);
      break;
    case RTE_CRYPTO_SYM_XFORM_AUTH:
      in_place = describe<RTE_CRYPTO_SYM_XFORM_AUTH>(burst, session, *layout_handle, first, count);
      break;
    default:
      in_place = describe<RTE_CRYPTO_SYM_XFORM_AEAD>(burst, session, *layout_handle, first, count);
  }
  // A thread is granted the API by its first in-place burst, never by
  // bursts that could not use it.
  if (!in_place || (verdict == kUndecided && !grant_synchronous_here())) return -1;
  // What a kind does not read points at kNowhere, whose pointers are valid
  // (the PMD copies or compares a digest of length 0 even for a cipher).
  const bool digests = session.type != RTE_CRYPTO_SYM_XFORM_CIPHER;
  const bool aads = session.type == RTE_CRYPTO_SYM_XFORM_AEAD && session.aad_length != 0;
  auto* nowhere = const_cast<rte_crypto_va_iova_ptr*>(kNowhere.data());  // never written
  rte_crypto_sym_vec vector{};
  vector.num = static_cast<std::uint32_t>(count);
  vector.src_sgl = burst.lists;
  vector.iv = session.iv_length != 0 ? burst.ivs : nowhere;
  vector.digest = digests ? burst.digests : nowhere;
  vector.aad = aads ? burst.aads : nowhere;
  vector.status = burst.results;
  rte_crypto_sym_ofs offsets{};
  const std::size_t done = rte_cryptodev_sym_cpu_crypto_process(static_cast<std::uint8_t>(id),
                                                                session.dpdk, offsets, &vector);
  *succeeded = done;
  if (done != count)
    for (std::size_t i = 0; i < count; ++i)
      statuses[i] = synchronous_status(burst.results[i], session);
  return 0;
}

void* acquire_queue_pair(int id) {
  if (!eal_usable_here()) return nullptr;
  Device* device = open_device(id);
  if (device == nullptr || device->failed) return nullptr;
  return device->free_pairs.take();
}

void release_queue_pair(void* handle) {
  auto* pair = static_cast<QueuePair*>(handle);
  if (pair != nullptr) pair->owner->free_pairs.give_back(pair, pair->retired);
}

std::size_t run_burst(void* handle, void* session_handle, const void* requests,
                      const ca_dpdk_request_layout* layout_handle, std::size_t count,
                      std::uint64_t deadline_ns, int* statuses) {
  auto* pair = static_cast<QueuePair*>(handle);
  if (pair == nullptr || session_handle == nullptr || pair->retired || count > CA_DPDK_MAX_BURST) {
    for (std::size_t i = 0; i < count; ++i) statuses[i] = CA_DPDK_FAILED;
    return 0;
  }
  const Device& device = *pair->owner;
  const BurstSetting setting{
      .by_reference = device.description.by_reference != 0,
      .out_of_place = (device.features & RTE_CRYPTODEV_FF_OOP_LB_IN_LB_OUT) != 0,
      .virtual_addresses = device.virtual_addresses,
      .fresh_op_word = pair->fresh_op_word};
  // The session's fields and the layout copied once, for the same reason.
  const Session session = *static_cast<const Session*>(session_handle);
  const ca_dpdk_request_layout layout = *layout_handle;
  const auto* first = static_cast<const std::byte*>(requests);
  const FillRun fill_all =
      setting.by_reference ? fill_run_for<true>(session.type) : fill_run_for<false>(session.type);
  fill_all(setting, session, layout, *pair, first, count);
  // The clock is read only once the device keeps the CPU waiting: a device
  // that computes in the caller's thread never does.
  std::uint64_t give_up = 0;
  static_assert(CA_DPDK_MAX_BURST <= 64, "one bit per request of a burst");
  std::uint64_t finished = 0;
  // Operations back (of this burst), and those of them that failed.
  std::size_t enqueued = 0, done = 0, completed = 0, unsuccessful = 0;
  rte_crypto_op* back[CA_DPDK_MAX_BURST];
  unsigned idle = 0;
  while (done < count) {
    if (enqueued < count) {
      const std::uint16_t taken =
          rte_cryptodev_enqueue_burst(pair->device, pair->id, pair->ops + enqueued,
                                      static_cast<std::uint16_t>(count - enqueued));
      enqueued += taken;
      if (taken == 0 && enqueued == done) {
        // Nothing in flight, so no full queue: the device refused the
        // operation (a length or a parameter its PMD does not take). It
        // fails alone, at once (its status still says "not processed"),
        // instead of holding the burst until the deadline retires the pair.
        finished |= std::uint64_t{1} << enqueued;
        ++enqueued;
        ++done;
        continue;
      }
    }
    const std::uint16_t n = rte_cryptodev_dequeue_burst(pair->device, pair->id, back,
                                                        static_cast<std::uint16_t>(count - done));
    std::uint16_t k = 0;
    if (setting.by_reference) {
      // The common case, without a store per request: operations back in
      // order, each a success, nothing to copy.
      while (k < n && done + k < count && pair->ops[done + k] == back[k] &&
             back[k]->status == RTE_CRYPTO_OP_STATUS_SUCCESS)
        ++k;
      finished |= bits(done, k);
    }
    std::size_t ours = k;
    for (; k < n; ++k)
      ours += finish(device, session, layout, *pair, back[k], done + k, first, count, finished,
                     unsuccessful);
    // An operation that is none of this burst's (a device whose queue pairs
    // share rings would hand one over) does not count as one of its own.
    completed += ours;
    done += ours;
    if (ours != 0) {
      idle = 0;
      continue;
    }
    // A device that computes in the caller's thread is done at once; one
    // that DMAs is given the CPU between polls, and a deadline.
    if (idle++ == 0 && give_up == 0) give_up = now_ns() + deadline_ns;
    if ((idle & 63) == 0 && now_ns() > give_up) {
      pair->retired = true;
      break;
    }
  }
  const std::size_t succeeded = completed - unsuccessful;
  if (succeeded != count)
    for (std::size_t i = 0; i < count; ++i)
      statuses[i] = (finished >> i & 1) == 0 ? CA_DPDK_TIMED_OUT : status_of(*pair->ops[i]);
  return succeeded;
}

}  // namespace cryptoaccel::dpdk_backend
