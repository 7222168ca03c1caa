#include "async_burst.hpp"

#include <openssl/async.h>

#include "async_wait.hpp"

namespace cryptoaccel::provider {

bool run_in_burst(Session& session, Request& request) {
  ASYNC_JOB* job = ASYNC_get_current_job();
  if (job == nullptr) return false;
  // The job keeps the number, not a share (one left on an abandoned job's
  // stack would keep the descriptor open for ever): the wait context holds
  // one whenever the job runs.
  const int fd = [job] {
    const std::shared_ptr<WaitFd> wait = job_wait_fd(job);
    return wait != nullptr ? wait->fd() : -1;
  }();
  if (fd < 0) return false;
  AsyncTicket ticket;
  if (!session.start({&request, 1}, ticket)) return false;
  while (ticket.unfinished.load(std::memory_order_acquire) != 0) {
    // Readable at once: the application resumes this job at its next turn,
    // after its other jobs have had theirs (and queued their requests).
    signal_wait_fd(fd);
    ASYNC_pause_job();
    drain_wait_fd(fd);
    // Still queued after a turn: no one else is coming; run it now.
    if (ticket.unfinished.load(std::memory_order_acquire) != 0) session.flush();
  }
  return true;
}

}  // namespace cryptoaccel::provider
