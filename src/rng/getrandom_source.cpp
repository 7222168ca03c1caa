// getrandom(2): the kernel's CRNG, blocking only until it is first seeded.
#include <sys/random.h>

#include <cerrno>

#include "raw_source.hpp"

namespace cryptoaccel::rng {
namespace {

class GetrandomSource final : public RawSource {
 public:
  std::size_t read(std::span<std::uint8_t> out) override {
    std::size_t got = 0;
    while (got < out.size()) {
      const ssize_t n = ::getrandom(out.data() + got, out.size() - got, 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw DriverFailure("getrandom: " + system_error_text(errno));
      }
      got += static_cast<std::size_t>(n);
    }
    return got;
  }
};

}  // namespace

RandomSourceInfo probe_getrandom() {
  RandomSourceInfo info{.name = "getrandom",
                        .kind = RandomSourceKind::software,
                        .description = "the kernel's CRNG (getrandom(2))",
                        .entropy_per_sample = kClaimedEntropyPerByte};
  std::uint8_t byte;
  if (::getrandom(&byte, 1, GRND_NONBLOCK) == 1 || errno == EAGAIN) {
    info.available = true;
  } else {
    info.detail = "getrandom: " + system_error_text(errno);
  }
  return info;
}

std::unique_ptr<RawSource> open_getrandom() {
  const RandomSourceInfo info = probe_getrandom();
  if (!info.available) throw Unsupported(info.detail);
  return std::make_unique<GetrandomSource>();
}

}  // namespace cryptoaccel::rng
