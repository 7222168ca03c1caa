// The one file descriptor an OpenSSL ASYNC job's wait context gets from
// us. Applications wait on a paused job's descriptors and resume it when
// one is readable; `openssl speed -async_jobs` refuses a job with more than
// one, so every part of the provider that pauses a job shares this one.
//
// The descriptor is owned jointly: by the wait context (its share dropped
// when the application frees the context, as SSL_free does for a paused
// handshake) and by every worker that will signal it. A worker so never
// writes to a descriptor number that the process has meanwhile given to
// another file.
#pragma once

#include <openssl/async.h>

#include <memory>

namespace cryptoaccel::provider {

// A non-blocking eventfd, closed when its last owner lets it go.
class WaitFd {
 public:
  // Null when the process has no descriptor left.
  static std::shared_ptr<WaitFd> open();
  explicit WaitFd(int fd) noexcept : fd_(fd) {}
  ~WaitFd();
  WaitFd(const WaitFd&) = delete;
  WaitFd& operator=(const WaitFd&) = delete;

  int fd() const noexcept { return fd_; }
  // Makes the descriptor readable: the application resumes the job at its
  // next turn. Each call is a write, so an application that waits for
  // edges (EPOLLET) sees a new one even where the descriptor was readable.
  void signal() const noexcept;
  // Empties it, returning how many signals it held.
  unsigned long long drain() const noexcept;

 private:
  const int fd_;
};

// `job`'s descriptor, made and registered in its wait context on first use;
// null when there is none to be had (no wait context, no descriptor left):
// the job is then not paused.
std::shared_ptr<WaitFd> job_wait_fd(ASYNC_JOB* job);

}  // namespace cryptoaccel::provider
