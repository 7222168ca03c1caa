#include "async_burst.hpp"

#include <openssl/async.h>
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

// This job's eventfd, made and registered on first use; -1 when there is
// none to be had (the job then is not paused by us).
int wait_fd(ASYNC_JOB* job) {
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

}  // namespace

bool run_in_burst(Session& session, Request& request) {
  ASYNC_JOB* job = ASYNC_get_current_job();
  if (job == nullptr) return false;
  const int fd = wait_fd(job);
  if (fd < 0) return false;
  AsyncTicket ticket;
  if (!session.start({&request, 1}, ticket)) return false;
  while (ticket.unfinished.load(std::memory_order_acquire) != 0) {
    // Readable at once: the application resumes this job at its next turn,
    // after its other jobs have had theirs (and queued their requests).
    const std::uint64_t one = 1;
    if (write(fd, &one, sizeof one) < 0) {
      // A full counter is still readable; nothing else can fail here.
    }
    ASYNC_pause_job();
    std::uint64_t drained = 0;
    if (read(fd, &drained, sizeof drained) < 0) {
      // EAGAIN: already drained by an earlier turn.
    }
    // Still queued after a turn: no one else is coming; run it now.
    if (ticket.unfinished.load(std::memory_order_acquire) != 0) session.flush();
  }
  return true;
}

}  // namespace cryptoaccel::provider
