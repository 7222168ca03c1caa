#include "input.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cryptoaccel::tools::rngtest {

std::size_t Input::read_some(std::span<std::uint8_t> out) {
  if (source_) {
    if (stop_.load() != 0) {
      end_ = End::interrupted;
      return 0;
    }
    try {
      // A block at a time: a slow device (a few KB/s) still stops soon
      // after a signal.
      const std::size_t n = source_->read(out.first(std::min<std::size_t>(out.size(), 2500)));
      if (n == 0) end_ = End::drained;
      return n;
    } catch (const Error& e) {
      error_ = e.what();
      end_ = End::error;
      return 0;
    }
  }
  while (true) {
    const ssize_t n = ::read(STDIN_FILENO, out.data(), out.size());
    if (n > 0) return static_cast<std::size_t>(n);
    if (n == 0) {
      end_ = End::drained;
      return 0;
    }
    if (stop_.load() != 0) {
      end_ = End::interrupted;  // as rngtest: a signal ends the input silently
      return 0;
    }
    if (errno == EINTR || errno == EAGAIN) continue;
    error_ = std::strerror(errno);
    end_ = End::error;
    return 0;
  }
}

std::size_t Input::fill(std::span<std::uint8_t> out) {
  if (end_ != End::none) return 0;
  std::size_t got = 0;
  while (got < out.size() && end_ == End::none) got += read_some(out.subspan(got));
  return got;
}

void Input::report_end() {
  if (reported_) return;
  reported_ = true;
  if (end_ == End::drained && !quiet_) fmt::print(stderr, "rngtest: entropy source drained\n");
  if (end_ == End::error) fmt::print(stderr, "rngtest: error reading input: {}\n", error_);
}

}  // namespace cryptoaccel::tools::rngtest
