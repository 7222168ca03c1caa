// Is a kernel implementation hardware (an engine off the CPU) or software?
// The kernel does not say directly (CRYPTO_ALG_KERN_DRIVER_ONLY is not in
// /proc/crypto), so the rule is: the module, or failing that the driver
// name, belongs to a known accelerator driver. docs/drivers/afalg.md lists
// them. CPU instruction sets (aesni, ssse3, avx2, ce, padlock) are software.
#pragma once

#include <string_view>

#include "cryptoaccel/driver/driver.hpp"
#include "proc_crypto.hpp"

namespace cryptoaccel::afalg {

DriverKind kind_of(const KernelImplementation& implementation) noexcept;

}  // namespace cryptoaccel::afalg
