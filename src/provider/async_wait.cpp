#include "async_wait.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace cryptoaccel::provider {
namespace {

// Its address identifies our fd among a wait context's.
const char kWaitKey = 0;

using Share = std::shared_ptr<WaitFd>;

// The wait context's share goes; a worker still holding one keeps the
// descriptor open until it has signalled.
void drop_wait_share(ASYNC_WAIT_CTX*, const void*, OSSL_ASYNC_FD, void* custom) {
  std::unique_ptr<Share> share(static_cast<Share*>(custom));
}

}  // namespace

std::shared_ptr<WaitFd> WaitFd::open() {
  const int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) return nullptr;
  return std::make_shared<WaitFd>(fd);
}

WaitFd::~WaitFd() {
  close(fd_);
}

void WaitFd::signal() const noexcept {
  const std::uint64_t one = 1;
  if (write(fd_, &one, sizeof one) < 0) {
    // A full counter is still readable; nothing else can fail here.
  }
}

unsigned long long WaitFd::drain() const noexcept {
  std::uint64_t count = 0;
  if (read(fd_, &count, sizeof count) != sizeof count) return 0;  // EAGAIN: nothing to drain
  return count;
}

std::shared_ptr<WaitFd> job_wait_fd(ASYNC_JOB* job) {
  ASYNC_WAIT_CTX* wait = ASYNC_get_wait_ctx(job);
  if (wait == nullptr) return nullptr;
  OSSL_ASYNC_FD fd = -1;
  void* custom = nullptr;
  if (ASYNC_WAIT_CTX_get_fd(wait, &kWaitKey, &fd, &custom) == 1 && custom != nullptr)
    return *static_cast<Share*>(custom);
  auto share = std::make_unique<Share>(WaitFd::open());
  if (*share == nullptr) return nullptr;
  if (ASYNC_WAIT_CTX_set_wait_fd(wait, &kWaitKey, (*share)->fd(), share.get(), drop_wait_share) !=
      1)
    return nullptr;
  const Share* kept = share.release();  // the wait context's share from here on
  return *kept;
}

}  // namespace cryptoaccel::provider
