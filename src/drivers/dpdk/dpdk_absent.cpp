// The dpdk driver where this build has no DPDK.
#include "cryptoaccel/driver/driver.hpp"

namespace cryptoaccel {

DriverProbe probe_dpdk_driver(std::string_view /*setting*/) {
  DriverProbe probe;
  probe.absent_reason = "built without DPDK (Debian: libdpdk-dev)";
  return probe;
}

}  // namespace cryptoaccel
