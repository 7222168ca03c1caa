#include "aio.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace cryptoaccel::afalg {

AioContext::~AioContext() {
  reset();
}

void AioContext::reset() noexcept {
  // io_destroy waits for any read still in the kernel, so no completion can
  // write into buffers the caller is about to free or reuse.
  if (ready_) ::syscall(SYS_io_destroy, context_);
  ready_ = false;
  context_ = 0;
}

int AioContext::ready(unsigned depth) noexcept {
  if (ready_) return 0;
  if (::syscall(SYS_io_setup, depth, &context_) != 0) return -errno;
  ready_ = true;
  return 0;
}

iocb AioContext::read_request(int fd, std::span<const iovec> iov, std::size_t tag) noexcept {
  iocb request{};
  request.aio_data = tag;
  request.aio_lio_opcode = IOCB_CMD_PREADV;
  request.aio_fildes = static_cast<std::uint32_t>(fd);
  request.aio_buf = reinterpret_cast<std::uintptr_t>(iov.data());
  request.aio_nbytes = iov.size();
  return request;
}

int AioContext::submit(std::span<iocb*> reads) noexcept {
  for (;;) {
    const long taken =
        ::syscall(SYS_io_submit, context_, static_cast<long>(reads.size()), reads.data());
    if (taken >= 0) return static_cast<int>(taken);
    if (errno != EINTR) return -errno;
  }
}

int AioContext::wait(std::span<io_event> events) noexcept {
  std::size_t done = 0;
  while (done < events.size()) {
    const long got =
        ::syscall(SYS_io_getevents, context_, static_cast<long>(events.size() - done),
                  static_cast<long>(events.size() - done), events.data() + done, nullptr);
    if (got < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    done += static_cast<std::size_t>(got);
  }
  return 0;
}

}  // namespace cryptoaccel::afalg
