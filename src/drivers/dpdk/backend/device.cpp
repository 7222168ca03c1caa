// Opening a device: configure, set up queue pairs, start, and give each
// queue pair its operations and mbufs for good. Devices are never stopped
// or closed: EAL lives as long as the process, other frameworks of the same
// process may open the device again, and DPDK's teardown is fragile (the
// scheduler crashes in rte_eal_cleanup() once its workers are closed).
// With --no-huge or --in-memory nothing outlives the process.
#include "device.hpp"
#include "eal.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <rte_bus.h>
#include <rte_cryptodev.h>
#include <rte_cryptodev_scheduler.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>

namespace cryptoaccel::dpdk_backend {
namespace {

constexpr std::uint32_t kDescriptors = 2 * CA_DPDK_MAX_BURST;

std::mutex open_mutex;
// Never freed: a thread of the application may still be inside a burst
// while exit() runs static destructors, and DPDK's devices outlive them too.
Device* const devices = new Device[RTE_CRYPTO_MAX_DEVS];

// `why`, and what DPDK logged about it since the device began to open.
void fail(Device& device, std::string why, bool dpdk_said = true) {
  if (const std::string logged = last_dpdk_log_line(); dpdk_said && !logged.empty())
    why += " (DPDK: " + logged + ")";
  device.failed = true;
  device.description.usable = 0;
  std::snprintf(device.description.unusable, sizeof device.description.unusable, "%s", why.c_str());
}

int socket_of(std::uint8_t id) {
  const int socket = rte_cryptodev_socket_id(id);
  return socket < 0 ? SOCKET_ID_ANY : socket;
}

bool set_up_queue_pairs(Device& device, std::uint8_t id, unsigned count) {
  for (unsigned q = 0; q < count; ++q) {
    rte_cryptodev_qp_conf conf{};
    conf.nb_descriptors = kDescriptors;
    conf.mp_session = device.sessions.first();
    if (rte_cryptodev_queue_pair_setup(id, static_cast<std::uint16_t>(q), &conf, socket_of(id)) <
        0) {
      fail(device, "queue pair " + std::to_string(q) + " could not be set up");
      return false;
    }
  }
  return true;
}

// What stays the same in every burst: each operation's index and session
// type, and (by reference) the shape of the mbufs that point at the
// caller's memory. No PMD writes these; the scheduler restores the session
// it swaps.
void prepare(const Device& device, QueuePair& pair) {
  for (std::size_t i = 0; i < CA_DPDK_MAX_BURST; ++i) {
    rte_crypto_op* op = pair.ops[i];
    op->status = RTE_CRYPTO_OP_STATUS_NOT_PROCESSED;
    op->sess_type = RTE_CRYPTO_OP_WITH_SESSION;
    std::memset(static_cast<void*>(op->sym), 0, sizeof *op->sym);
    pair.filled_as[i] = QueuePair::kNoKindYet;
    pair.fresh_op_word = op->raw;
    *rte_crypto_op_ctod_offset(op, std::uint32_t*, kIndexOffset) = static_cast<std::uint32_t>(i);
    if (!device.description.by_reference) continue;
    for (rte_mbuf* m : {pair.source[i], pair.destination[i]}) {
      m->data_off = 0;
      m->nb_segs = 1;
      m->next = nullptr;
    }
  }
}

bool give_operations(Device& device, std::uint8_t id, unsigned count) {
  for (unsigned q = 0; q < count; ++q) {
    auto pair = std::make_unique<QueuePair>();
    pair->owner = &device;
    pair->device = id;
    pair->id = static_cast<std::uint16_t>(q);
    if (rte_crypto_op_bulk_alloc(device.operations, RTE_CRYPTO_OP_TYPE_SYMMETRIC, pair->ops,
                                 CA_DPDK_MAX_BURST) != CA_DPDK_MAX_BURST ||
        rte_pktmbuf_alloc_bulk(device.buffers, pair->source, CA_DPDK_MAX_BURST) != 0 ||
        (device.description.by_reference &&
         rte_pktmbuf_alloc_bulk(device.buffers, pair->destination, CA_DPDK_MAX_BURST) != 0)) {
      fail(device, "out of DPDK memory for the queue pairs' operations (EAL's -m too small?)");
      return false;
    }
    prepare(device, *pair);
    device.free_pairs.add(pair.get());
    device.queue_pairs.push_back(std::move(pair));
  }
  return true;
}

bool is_scheduler(const rte_cryptodev_info& info) {
  return info.driver_name != nullptr && std::strcmp(info.driver_name, "crypto_scheduler") == 0;
}

// The scheduler's own functions. Its PMD is a plugin EAL loaded privately,
// so they are looked up there (EAL keeps the library loaded).
struct SchedulerFunctions {
  int (*workers_get)(std::uint8_t, std::uint8_t*) = nullptr;
  int (*mode_get)(std::uint8_t) = nullptr;
};

SchedulerFunctions scheduler_functions() {
  SchedulerFunctions f;
  void* scheduler = dlopen("librte_crypto_scheduler.so.23", RTLD_NOW | RTLD_NOLOAD);
  if (scheduler == nullptr) return f;
  f.workers_get = reinterpret_cast<decltype(f.workers_get)>(
      dlsym(scheduler, "rte_cryptodev_scheduler_workers_get"));
  f.mode_get =
      reinterpret_cast<decltype(f.mode_get)>(dlsym(scheduler, "rte_cryptodev_scheduler_mode_get"));
  dlclose(scheduler);
  return f;
}

std::vector<std::uint8_t> workers_of(std::uint8_t scheduler) {
  const SchedulerFunctions f = scheduler_functions();
  std::uint8_t workers[RTE_CRYPTO_MAX_DEVS];
  const int count = f.workers_get != nullptr ? f.workers_get(scheduler, workers) : 0;
  return {workers, workers + std::max(count, 0)};
}

// The scheduler configures and starts its workers itself: a worker opened
// on its own as well would be configured twice and fail the scheduler.
void mark_scheduler_workers() {
  for (std::uint8_t id = 0; id < RTE_CRYPTO_MAX_DEVS; ++id) {
    if (!rte_cryptodev_is_valid_dev(id)) continue;
    rte_cryptodev_info info{};
    rte_cryptodev_info_get(id, &info);
    if (!is_scheduler(info)) continue;
    for (std::uint8_t w : workers_of(id)) devices[w].worker_of = id;
  }
}

// PMDs that compute in the caller's thread, inside its enqueue and dequeue
// calls: they may be handed the caller's memory, which no one touches once
// the burst has returned. Any other software PMD gets copies in its own
// mbufs, so that a burst given up on (its deadline passed) leaves nothing
// of the caller's in the device's hands.
constexpr std::string_view kComputingInTheCaller[] = {
    "crypto_aesni_mb", "crypto_aesni_gcm", "crypto_chacha20_poly1305",
    "crypto_kasumi",   "crypto_snow3g",    "crypto_zuc",
    "crypto_openssl",  "crypto_null",      "crypto_armv8"};

bool computes_in_the_caller(std::uint8_t id, int depth = 0) {
  rte_cryptodev_info info{};
  rte_cryptodev_info_get(id, &info);
  if (info.driver_name == nullptr) return false;
  if (is_scheduler(info)) {
    // Round-robin, packet-size and fail-over modes call their workers in
    // the caller's thread; the workers decide.
    const SchedulerFunctions f = scheduler_functions();
    const int mode = f.mode_get != nullptr ? f.mode_get(id) : -1;
    if (depth > 0 || (mode != CDEV_SCHED_MODE_ROUNDROBIN &&
                      mode != CDEV_SCHED_MODE_PKT_SIZE_DISTR && mode != CDEV_SCHED_MODE_FAILOVER))
      return false;
    const std::vector<std::uint8_t> workers = workers_of(id);
    return !workers.empty() && std::all_of(workers.begin(), workers.end(), [&](std::uint8_t w) {
      return computes_in_the_caller(w, depth + 1);
    });
  }
  return std::any_of(std::begin(kComputingInTheCaller), std::end(kComputingInTheCaller),
                     [&](std::string_view name) { return name == info.driver_name; });
}

void open(Device& device, std::uint8_t id) {
  forget_dpdk_log();
  ca_dpdk_device& d = device.description;
  d.usable = 1;
  std::snprintf(d.name, sizeof d.name, "%s", rte_cryptodev_name_get(id));
  rte_cryptodev_info info{};
  rte_cryptodev_info_get(id, &info);
  std::snprintf(d.driver, sizeof d.driver, "%s", info.driver_name ? info.driver_name : "?");
  if (device.worker_of >= 0) {
    fail(device,
         std::string("a worker of the scheduler ") +
             rte_cryptodev_name_get(static_cast<std::uint8_t>(device.worker_of)) +
             ", which serves its requests",
         false);
    return;
  }
  if (is_scheduler(info)) {
    // In multi-core mode the scheduler runs requests on its own lcores
    // through rings every queue pair shares: one thread's burst would take
    // another's operations.
    const SchedulerFunctions f = scheduler_functions();
    const int mode = f.mode_get != nullptr ? f.mode_get(id) : -1;
    if (mode == CDEV_SCHED_MODE_MULTICORE || mode == CDEV_SCHED_MODE_USERDEFINED) {
      fail(device,
           std::string("a scheduler in ") +
               (mode == CDEV_SCHED_MODE_MULTICORE ? "multi-core" : "a user-defined") +
               " mode, whose queue pairs are not each a thread's own (round-robin, "
               "packet-size-distr and fail-over modes are)",
           false);
      return;
    }
  }
  if (eal_shared()) {
    const auto ours = [](std::uint8_t dev) {
      rte_cryptodev_info i{};
      rte_cryptodev_info_get(dev, &i);
      return i.device != nullptr && added_for_us(rte_dev_name(i.device));
    };
    if (!ours(id) || rte_cryptodev_queue_pair_count(id) != 0) {
      fail(device,
           "not cryptoaccel's: it was there before EAL was shared, made by whoever started it "
           "(the application, or another copy of cryptoaccel)",
           false);
      return;
    }
    // A scheduler the arguments added may have taken the application's
    // devices as its workers: starting it would configure them.
    if (is_scheduler(info))
      for (std::uint8_t w : workers_of(id))
        if (!ours(w)) {
          fail(device,
               std::string("a scheduler over ") + rte_cryptodev_name_get(w) +
                   ", which is not cryptoaccel's (EAL is shared): left unstarted",
               false);
          return;
        }
  }
  device.features = info.feature_flags;
  device.virtual_addresses = rte_eal_iova_mode() == RTE_IOVA_VA;
  // A device on a bus (PCI, a SoC's platform bus) is a device, whatever its
  // PMD says of acceleration (virtio's says none); a virtual device is
  // software unless its PMD says otherwise.
  const bool virtual_device =
      info.device != nullptr && std::strcmp(rte_bus_name(rte_dev_bus(info.device)), "vdev") == 0;
  d.hardware = !virtual_device || (info.feature_flags & RTE_CRYPTODEV_FF_HW_ACCELERATED) != 0;
  // A device that reads memory with the CPU in the caller's own calls can
  // be handed the caller's buffers; one that DMAs needs memory DPDK knows
  // the IOVA of, and one that works on its own cores copies.
  d.by_reference = !d.hardware && computes_in_the_caller(id);
  d.max_request = d.by_reference ? kReferenceMaxRequest : kCopyMaxRequest;
  // In DPDK 22.11 only these two PMDs have the CPU crypto function: the
  // scheduler states its workers' features as its own, and the
  // chacha20_poly1305 PMD the feature, without it.
  const bool has_cpu_crypto = std::strcmp(d.driver, "crypto_aesni_mb") == 0 ||
                              std::strcmp(d.driver, "crypto_aesni_gcm") == 0;
  d.synchronous = d.by_reference && has_cpu_crypto &&
                  (info.feature_flags & RTE_CRYPTODEV_FF_SYM_CPU_CRYPTO) != 0;
  // DPDK 22.11's virtio PMD refuses a request longer than a default mbuf's
  // buffer (RTE_MBUF_DEFAULT_BUF_SIZE, 2176 bytes), and keeps one of its
  // descriptor cookies each time: a thousand refusals leave the device
  // unable to take any request. Longer requests go to another driver.
  if (std::strcmp(d.driver, "crypto_virtio") == 0)
    d.max_request = std::min<std::uint32_t>(d.max_request, RTE_MBUF_DEFAULT_BUF_SIZE);
  if ((info.feature_flags & RTE_CRYPTODEV_FF_SYMMETRIC_CRYPTO) == 0) {
    fail(device, "no symmetric cryptography");
    return;
  }
  const unsigned pairs = std::min<unsigned>(info.max_nb_queue_pairs, QueuePairPool::kMaxPairs);
  if (pairs == 0) {
    fail(device, "no queue pair");
    return;
  }
  d.queue_pairs = pairs;

  const std::string suffix = std::to_string(id);
  const bool sessions = device.sessions.start(id, socket_of(id));
  device.operations =
      rte_crypto_op_pool_create(("ca_ops" + suffix).c_str(), RTE_CRYPTO_OP_TYPE_SYMMETRIC,
                                pairs * CA_DPDK_MAX_BURST, 0, kPrivateSize, socket_of(id));
  const std::uint16_t room =
      d.by_reference ? 0 : RTE_PKTMBUF_HEADROOM + kCopyMaxRequest + kDigestSpace;
  device.buffers = rte_pktmbuf_pool_create(
      ("ca_buf" + suffix).c_str(), pairs * CA_DPDK_MAX_BURST * 2, 0, 0, room, socket_of(id));
  if (!sessions || device.operations == nullptr || device.buffers == nullptr) {
    fail(device, std::string("cannot create its pools: ") + rte_strerror(rte_errno) +
                     " (EAL's -m too small?)");
    return;
  }

  rte_cryptodev_config config{};
  config.socket_id = socket_of(id);
  config.nb_queue_pairs = static_cast<std::uint16_t>(pairs);
  config.ff_disable = RTE_CRYPTODEV_FF_ASYMMETRIC_CRYPTO | RTE_CRYPTODEV_FF_SECURITY;
  if (rte_cryptodev_configure(id, &config) < 0) {
    fail(device, "rte_cryptodev_configure failed");
    return;
  }
  if (!set_up_queue_pairs(device, id, pairs)) return;
  if (rte_cryptodev_start(id) < 0) {
    fail(device, "rte_cryptodev_start failed");
    return;
  }
  give_operations(device, id, pairs);
}

}  // namespace

Device* open_device(int id) {
  if (id < 0 || id >= RTE_CRYPTO_MAX_DEVS) return nullptr;
  Device& device = devices[id];
  // Every batch asks: once the device is open, without the lock (devices
  // are never detached).
  if (device.opened.load(std::memory_order_acquire)) return &device;
  if (!rte_cryptodev_is_valid_dev(static_cast<std::uint8_t>(id))) return nullptr;
  const std::lock_guard lock(open_mutex);
  // Asking a scheduler for its workers attaches those of its arguments,
  // which it logs: the backend's log, not the application's.
  const DpdkLogKept kept;
  static bool workers_marked = false;
  if (!workers_marked) {
    workers_marked = true;
    mark_scheduler_workers();
  }
  if (!device.opened.load(std::memory_order_relaxed)) {
    open(device, static_cast<std::uint8_t>(id));
    device.opened.store(true, std::memory_order_release);
  }
  return &device;
}

}  // namespace cryptoaccel::dpdk_backend
