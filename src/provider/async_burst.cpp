#include "async_burst.hpp"

#include <openssl/async.h>

#include "async_wait.hpp"

namespace cryptoaccel::provider {

bool run_in_burst(Session& session, Request& request) {
  ASYNC_JOB* job = ASYNC_get_current_job();
  if (job == nullptr) return false;
  const std::shared_ptr<WaitFd> wait = job_wait_fd(job);
  if (wait == nullptr) return false;
  AsyncTicket ticket;
  if (!session.start({&request, 1}, ticket)) return false;
  while (ticket.unfinished.load(std::memory_order_acquire) != 0) {
    // Readable at once: the application resumes this job at its next turn,
    // after its other jobs have had theirs (and queued their requests).
    wait->signal();
    ASYNC_pause_job();
    wait->drain();
    // Still queued after a turn: no one else is coming; run it now.
    if (ticket.unfinished.load(std::memory_order_acquire) != 0) session.flush();
  }
  return true;
}

}  // namespace cryptoaccel::provider
