#include "async_wait.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace cryptoaccel::provider {
namespace {

// Its address identifies our fd among a wait context's.
const char kWaitKey = 0;

void close_wait_fd(ASYNC_WAIT_CTX*, const void*, OSSL_ASYNC_FD fd, void*) {
  close(fd);
}

}  // namespace

int job_wait_fd(ASYNC_JOB* job) {
  ASYNC_WAIT_CTX* wait = ASYNC_get_wait_ctx(job);
  if (wait == nullptr) return -1;
  OSSL_ASYNC_FD fd = -1;
  void* custom = nullptr;
  if (ASYNC_WAIT_CTX_get_fd(wait, &kWaitKey, &fd, &custom) == 1 && fd >= 0) return fd;
  fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) return -1;
  if (ASYNC_WAIT_CTX_set_wait_fd(wait, &kWaitKey, fd, nullptr, close_wait_fd) != 1) {
    close(fd);
    return -1;
  }
  return fd;
}

void signal_wait_fd(int fd) noexcept {
  const std::uint64_t one = 1;
  if (write(fd, &one, sizeof one) < 0) {
    // A full counter is still readable; nothing else can fail here.
  }
}

unsigned long long drain_wait_fd(int fd) noexcept {
  std::uint64_t count = 0;
  if (read(fd, &count, sizeof count) != sizeof count) return 0;  // EAGAIN: nothing to drain
  return count;
}

}  // namespace cryptoaccel::provider
