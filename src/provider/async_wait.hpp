// The one file descriptor an OpenSSL ASYNC job's wait context gets from
// us. Applications wait on a paused job's descriptors and resume it when
// one is readable; `openssl speed -async_jobs` refuses a job with more than
// one, so every part of the provider that pauses a job shares this one.
#pragma once

#include <openssl/async.h>

namespace cryptoaccel::provider {

// `job`'s eventfd (non-blocking), made and registered in its wait context
// on first use and closed with it; -1 when there is none to be had (no
// wait context, no descriptor left): the job is then not paused.
int job_wait_fd(ASYNC_JOB* job);

// Makes the descriptor readable (the application resumes the job at its
// next turn), and drains it, returning how many signals it held (after the
// job has been resumed).
void signal_wait_fd(int fd) noexcept;
unsigned long long drain_wait_fd(int fd) noexcept;

}  // namespace cryptoaccel::provider
