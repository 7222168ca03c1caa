// A source read with read(2) from a file descriptor: /dev/hwrng, files,
// stdin. Short reads continue; EINTR retries.
#pragma once

#include <string>

#include "kernel/af_alg_socket.hpp"
#include "raw_source.hpp"

namespace cryptoaccel::rng {

class FdSource final : public RawSource {
 public:
  // `ends`: whether the end of the data is normal (files, stdin) or a
  // failure (devices, which never end).
  FdSource(kernel::Fd fd, std::string name, bool ends)
      : fd_(std::move(fd)), name_(std::move(name)), ends_(ends) {}

  std::size_t read(std::span<std::uint8_t> out) override;

 private:
  kernel::Fd fd_;
  std::string name_;
  bool ends_;
};

}  // namespace cryptoaccel::rng
