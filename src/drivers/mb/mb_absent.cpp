// The mb driver where this build has no libipsec-mb.
#include "cryptoaccel/driver/driver.hpp"

namespace cryptoaccel {

DriverProbe probe_mb_driver(std::string_view /*setting*/) {
  DriverProbe probe;
  probe.absent_reason = "built without libipsec-mb (Debian: libipsec-mb-dev, x86-64 only)";
  return probe;
}

}  // namespace cryptoaccel
