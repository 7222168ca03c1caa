#include "fd_source.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cryptoaccel::rng {

std::string system_error_text(int error) {
  return std::strerror(error);
}

std::size_t FdSource::read(std::span<std::uint8_t> out) {
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::read(fd_.get(), out.data() + got, out.size() - got);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw DriverFailure(name_ + ": read: " + system_error_text(errno));
    }
    if (n == 0) {
      if (ends_) break;
      throw DriverFailure(name_ + ": the device returned no data");
    }
    got += static_cast<std::size_t>(n);
  }
  return got;
}

}  // namespace cryptoaccel::rng
