// Capabilities and sessions (algorithms.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include <rte_crypto_sym.h>

#include "../backend_abi.h"

namespace cryptoaccel::dpdk_backend {

// What the library holds for one DPDK session: DPDK's, and the lengths it
// was made for, which shape each operation.
struct Session {
  void* dpdk = nullptr;
  rte_crypto_sym_xform_type type = RTE_CRYPTO_SYM_XFORM_NOT_SPECIFIED;
  int direction = CA_DPDK_ENCRYPT;
  std::uint32_t iv_length = 0;
  std::uint32_t digest_length = 0;
  std::uint32_t aad_length = 0;
};

void describe_capability(int id, int algorithm, ca_dpdk_capability* out);
void* create_session(int id, const ca_dpdk_session_params* params, char* message,
                     std::size_t message_size);
void free_session(int id, void* session);

}  // namespace cryptoaccel::dpdk_backend
