#include "zero_copy.hpp"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

namespace cryptoaccel::afalg {
namespace {

std::size_t page_size() noexcept {
  static const std::size_t size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

bool SplicePipe::suits(std::span<const std::uint8_t> in,
                       std::span<const std::uint8_t> out) noexcept {
  const std::size_t page = page_size();
  if (in.size() < kZeroCopyMin || in.size() > kZeroCopyMaxPages * page) return false;
  const auto start = reinterpret_cast<std::uintptr_t>(in.data());
  if (start % page != 0) return false;
  const auto out_start = reinterpret_cast<std::uintptr_t>(out.data());
  return out_start + out.size() <= start || start + in.size() <= out_start;
}

int SplicePipe::open() noexcept {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) return -errno;
  read_end_ = Fd(ends[0]);
  write_end_ = Fd(ends[1]);
  // Room for a whole operation, so vmsplice never waits for splice.
  const int want = static_cast<int>(kZeroCopyMaxPages * page_size());
  if (::fcntl(write_end_.get(), F_GETPIPE_SZ) < want &&
      ::fcntl(write_end_.get(), F_SETPIPE_SZ, want) < want) {
    read_end_ = Fd();
    write_end_ = Fd();
    return -EOPNOTSUPP;
  }
  return 0;
}

int SplicePipe::send(const Fd& operation, std::span<const std::uint8_t> in) noexcept {
  if (!write_end_.valid() && open() != 0) return -EOPNOTSUPP;
  iovec pages{const_cast<std::uint8_t*>(in.data()), in.size()};
  const ssize_t mapped = ::vmsplice(write_end_.get(), &pages, 1, 0);
  if (mapped < 0 || static_cast<std::size_t>(mapped) != in.size()) {
    const int error = mapped < 0 ? -errno : -EIO;
    // Whatever went into the pipe must not reach the next request.
    read_end_ = Fd();
    write_end_ = Fd();
    return error;
  }
  // SPLICE_F_MORE on every piece, then an empty send ends the request: a
  // splice that stops short must not end it early.
  std::size_t left = in.size();
  while (left != 0) {
    const ssize_t moved =
        ::splice(read_end_.get(), nullptr, operation.get(), nullptr, left, SPLICE_F_MORE);
    if (moved <= 0) {
      const int error = moved < 0 ? -errno : -EIO;
      if (error == -EINTR) continue;
      read_end_ = Fd();
      write_end_ = Fd();
      return error;
    }
    left -= static_cast<std::size_t>(moved);
  }
  return send_data(operation, {}, false);
}

}  // namespace cryptoaccel::afalg
