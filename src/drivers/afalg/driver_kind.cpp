#include "driver_kind.hpp"

#include "drivers/kernel_accelerators.hpp"

namespace cryptoaccel::afalg {

DriverKind kind_of(const KernelImplementation& k) noexcept {
  return is_kernel_accelerator(k.module) || is_kernel_accelerator(k.driver) ? DriverKind::hardware
                                                                            : DriverKind::software;
}

}  // namespace cryptoaccel::afalg
