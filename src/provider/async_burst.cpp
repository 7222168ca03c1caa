#include "async_burst.hpp"

#include <openssl/async.h>

#include "async_wait.hpp"

namespace cryptoaccel::provider {

bool run_in_burst(Session& session, Request& request) {
  ASYNC_JOB* job = ASYNC_get_current_job();
  if (job == nullptr) return false;
  std::shared_ptr<WaitFd> wait = job_wait_fd(job);
  if (wait == nullptr) return false;
  AsyncTicket ticket;
  if (!session.start({&request, 1}, ticket)) return false;
  while (ticket.unfinished.load(std::memory_order_acquire) != 0) {
    // Readable: the application resumes this job at its next turn, after
    // its other jobs have had theirs (and queued their requests). Written
    // at every pause (an application waiting for edges needs each), never
    // read back here: a job waiting for a burst is always ready at the
    // next turn, and the read cost a system call per request. The job
    // holds no share across the pause (one left on an abandoned job's
    // stack would keep the descriptor open for ever): the wait context does.
    if (wait == nullptr) wait = job_wait_fd(job);
    if (wait != nullptr) wait->signal();
    wait.reset();
    ASYNC_pause_job();
    // Still queued after a turn: no one else is coming; run it now.
    if (ticket.unfinished.load(std::memory_order_acquire) != 0) session.flush();
  }
  return true;
}

}  // namespace cryptoaccel::provider
