// The kernel's choice per algorithm, from /proc/crypto: for each generic
// name, the implementation a user of that name gets (the highest priority
// of those that passed their self-test, as crypto_alg_lookup() picks), and
// whether it, or an implementation a template instance is built of, is an
// accelerator. Pure, so that tests feed it recorded /proc/crypto texts.
#pragma once

#include <string_view>
#include <vector>

#include "cryptoaccel/kernel_crypto.hpp"
#include "crypto_names.hpp"
#include "proc_crypto.hpp"
#include "unloaded_accelerators.hpp"

namespace cryptoaccel::kernel {

struct KernelUserAlgorithm {
  std::string_view name;  // generic name
  SocketType type;        // how AF_ALG instantiates it
  std::string_view user;  // who asks for it
};

// IPsec's ESP (XFRM), dm-crypt and fscrypt's algorithms.
const std::vector<KernelUserAlgorithm>& kernel_user_algorithms();

// Every userland-visible (not internal) generic name of `all`, by name.
std::vector<KernelAlgorithmChoice> kernel_choices(const std::vector<KernelImplementation>& all);

// For each unloaded accelerator, what its known registrations would change
// among `choices` ("cbc(aes): virtio_crypto_aes_cbc at priority 150 would
// replace cbc(aes-generic) (100)", or "... would stay below cbc-aes-aesni (400)").
std::vector<UnloadedAccelerator> describe_unloaded(const std::vector<UnloadedModule>& unloaded,
                                                   const std::vector<KernelAlgorithmChoice>& choices,
                                                   std::string_view kernel_release);

}  // namespace cryptoaccel::kernel
