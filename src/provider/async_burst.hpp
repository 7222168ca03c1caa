// A request of an OpenSSL ASYNC job (`openssl speed -async_jobs N`,
// SSL_MODE_ASYNC) that waits, with the job paused, to meet other jobs'
// requests in one burst of a driver that gathers (mb).
#pragma once

#include "cryptoaccel/session.hpp"

namespace cryptoaccel::provider {

// Inside an ASYNC job: queues `request` on `session`'s gathering driver
// (Session::start) and pauses the job until it has run, then returns true
// with its status set. The job's wait context gets one eventfd of ours,
// signalled before each pause, so that the application resumes the job at
// its next turn; a job that finds its request still queued then runs the
// queue itself (Session::flush): a request waits one turn of the
// application's loop at most for company. False, having done nothing,
// outside a job or where no gathering driver takes the request: the caller
// runs it as usual.
bool run_in_burst(Session& session, Request& request);

}  // namespace cryptoaccel::provider
