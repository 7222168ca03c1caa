#include "accelerators.hpp"

#include <array>

namespace cryptoaccel::kernel {
namespace {

constexpr std::array<std::string_view, 28> kAccelerators{{
    "virtio_crypto", "caam",         "qat_",     "sa2ul",   "omap_aes",  "omap_des",  "omap_sham",
    "atmel",         "marvell_cesa", "mv_cesa",  "talitos", "ccp",       "ccree",     "hisi_",
    "sun4i",         "sun8i",        "mxs_dcp",  "stm32",   "rk_crypto", "amlogic",   "geode_aes",
    "nx_crypto",     "crypto4xx",    "img_hash", "mtk_",    "safexcel",  "n2_crypto", "cavium",
}};

}  // namespace

bool is_kernel_accelerator(std::string_view name) noexcept {
  for (std::string_view prefix : kAccelerators) {
    if (name.size() < prefix.size()) continue;
    bool match = true;
    // Driver names use '-' where module names use '_'.
    for (std::size_t i = 0; i < prefix.size() && match; ++i)
      match = (name[i] == '-' ? '_' : name[i]) == prefix[i];
    if (match) return true;
  }
  return false;
}

DriverKind kind_of(const KernelImplementation& k) noexcept {
  return is_kernel_accelerator(k.module) || is_kernel_accelerator(k.driver) ? DriverKind::hardware
                                                                            : DriverKind::software;
}

}  // namespace cryptoaccel::kernel
