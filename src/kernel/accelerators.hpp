// Which Linux crypto drivers are engines off the CPU. The kernel does not
// tell userland directly (CRYPTO_ALG_KERN_DRIVER_ONLY is not in /proc/crypto,
// and cryptodev's flag is not always set), so both kernel paths (AF_ALG and
// /dev/crypto) go by the name of the module or driver. CPU instruction sets
// (aesni, ssse3, avx2, ce, padlock) are software.
#pragma once

#include <string_view>

#include "cryptoaccel/driver/driver.hpp"
#include "proc_crypto.hpp"

namespace cryptoaccel::kernel {

// Does a kernel module or driver name ('-' read as '_') start with the name
// of a known accelerator driver? docs/drivers/afalg.md lists them.
bool is_kernel_accelerator(std::string_view name) noexcept;

// Hardware when the implementation's module, or failing that its driver
// name, belongs to a known accelerator driver.
DriverKind kind_of(const KernelImplementation& implementation) noexcept;

}  // namespace cryptoaccel::kernel
