// /dev/hwrng: the kernel's current hardware RNG, named in sysfs.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "fd_source.hpp"

namespace cryptoaccel::rng {
namespace {

constexpr const char* kDevice = "/dev/hwrng";
constexpr const char* kCurrent = "/sys/class/misc/hw_random/rng_current";
constexpr const char* kAvailable = "/sys/class/misc/hw_random/rng_available";

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\n')) line.pop_back();
  return line;
}

}  // namespace

RandomSourceInfo probe_hwrng() {
  RandomSourceInfo info{.name = "hwrng",
                        .kind = RandomSourceKind::hardware,
                        .description = "the kernel's current hardware RNG (/dev/hwrng)",
                        .entropy_per_sample = kClaimedEntropyPerByte};
  const std::string current = first_line(kCurrent);
  const std::string available = first_line(kAvailable);
  if (access(kDevice, F_OK) != 0) {
    info.detail = "no /dev/hwrng: no hardware RNG driver is loaded (virtio-rng, tpm-rng, ...)";
  } else if (current.empty() || current == "none") {
    info.detail = "/dev/hwrng exists but no hardware RNG is current (rng_current: " +
                  (current.empty() ? std::string("unreadable") : current) + ")";
  } else if (access(kDevice, R_OK) != 0) {
    info.detail = "/dev/hwrng (" + current + "): " + system_error_text(errno) +
                  " (readable by root only by default)";
  } else {
    info.available = true;
    info.description = "kernel hardware RNG " + current + " (/dev/hwrng)";
    info.detail = "rng_current " + current + "; rng_available " + available;
  }
  return info;
}

std::unique_ptr<RawSource> open_hwrng() {
  const RandomSourceInfo info = probe_hwrng();
  if (!info.available) throw Unsupported("hwrng: " + info.detail);
  kernel::Fd fd(::open(kDevice, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) throw DriverFailure(std::string(kDevice) + ": " + system_error_text(errno));
  return std::make_unique<FdSource>(std::move(fd), "hwrng", false);
}

}  // namespace cryptoaccel::rng
