// The afalg driver is built on the shared kernel layer (src/kernel/): its
// AF_ALG sockets, the kernel's names for our algorithms, /proc/crypto and
// the rule for which implementations are accelerators. The driver's code
// names them as its own.
#pragma once

#include "kernel/accelerators.hpp"
#include "kernel/af_alg_socket.hpp"
#include "kernel/crypto_names.hpp"
#include "kernel/proc_crypto.hpp"

namespace cryptoaccel::afalg {
using namespace cryptoaccel::kernel;
}  // namespace cryptoaccel::afalg
