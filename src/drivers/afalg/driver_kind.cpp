#include "driver_kind.hpp"

#include <array>

namespace cryptoaccel::afalg {
namespace {

// Module (or driver-name) prefixes of off-CPU crypto engines in Linux.
constexpr std::array<std::string_view, 28> kAccelerators{{
    "virtio_crypto", "caam",         "qat_",     "sa2ul",   "omap_aes",  "omap_des",  "omap_sham",
    "atmel",         "marvell_cesa", "mv_cesa",  "talitos", "ccp",       "ccree",     "hisi_",
    "sun4i",         "sun8i",        "mxs_dcp",  "stm32",   "rk_crypto", "amlogic",   "geode_aes",
    "nx_crypto",     "crypto4xx",    "img_hash", "mtk_",    "safexcel",  "n2_crypto", "cavium",
}};

bool starts_with_any(std::string_view text) {
  for (std::string_view prefix : kAccelerators)
    if (text.starts_with(prefix)) return true;
  return false;
}

}  // namespace

DriverKind kind_of(const KernelImplementation& k) noexcept {
  // Driver names use '-' where module names use '_'.
  std::string driver = k.driver;
  for (char& c : driver)
    if (c == '-') c = '_';
  return starts_with_any(k.module) || starts_with_any(driver) ? DriverKind::hardware
                                                              : DriverKind::software;
}

}  // namespace cryptoaccel::afalg
