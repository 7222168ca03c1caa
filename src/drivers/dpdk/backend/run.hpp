// Queue pairs and bursts (run.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../backend_abi.h"
#include "device.hpp"

namespace cryptoaccel::dpdk_backend {

void* acquire_queue_pair(int id);
void release_queue_pair(void* queue_pair);
std::size_t run_burst(void* queue_pair, void* session, const void* requests,
                      const ca_dpdk_request_layout* layout, std::size_t count,
                      std::uint64_t deadline_ns, int* statuses);
int run_synchronous(int id, void* session, const void* requests,
                    const ca_dpdk_request_layout* layout, std::size_t count, int* statuses,
                    std::size_t* succeeded);

}  // namespace cryptoaccel::dpdk_backend
