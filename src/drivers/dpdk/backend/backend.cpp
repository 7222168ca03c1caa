// cryptoaccel-dpdk.so's one entry point: the table of ../backend_abi.h.
#include <cstdio>

#include <rte_cryptodev.h>

#include "../backend_abi.h"
#include "algorithms.hpp"
#include "cryptoaccel/version.hpp"
#include "device.hpp"
#include "eal.hpp"
#include "run.hpp"

namespace cryptoaccel::dpdk_backend {
namespace {

int device_count() {
  return rte_cryptodev_count();
}

int describe_device(int id, ca_dpdk_device* out) {
  Device* device = open_device(id);
  if (device == nullptr) return -1;
  *out = device->description;
  return 0;
}

const ca_dpdk_backend kBackend = {
    .version = CRYPTOACCEL_VERSION_STRING "/abi" CA_DPDK_ABI_REVISION,
    .start = start_eal,
    .device_count = device_count,
    .device_open = describe_device,
    .capability = describe_capability,
    .session_create = create_session,
    .session_free = free_session,
    .queue_pair_acquire = acquire_queue_pair,
    .queue_pair_release = release_queue_pair,
    .run = run_burst,
    .run_synchronous = run_synchronous,
};

}  // namespace
}  // namespace cryptoaccel::dpdk_backend

extern "C" __attribute__((visibility("default"))) const ca_dpdk_backend*
cryptoaccel_dpdk_backend() {
  return &cryptoaccel::dpdk_backend::kBackend;
}
