// The requests that may take long, served by threads of their own instead
// of libfuse's workers: those that need their caller's memory (above a
// round), which the caller may stall, and CIOCKEY's private-key operations,
// seconds each on numbers of thousands of bits. Whatever such a request
// does, the others, everyone else's included, keep their workers.
//
// Each user has `per_user` slots: a request of theirs runs while fewer of
// their requests run and fewer of their copiers are stuck than that
// (memory_copiers.hpp); the others wait in arrival order, up to
// kMaxWaitingPerUser. A user whose memory stalls so holds at most `per_user`
// of the threads, for the copiers' deadline each, and then none: their
// stuck copiers fill their slots, and their requests wait until the kernel
// lets those go. Other users' requests meanwhile take the other threads:
// there are up to `max_threads`, started as the jobs need them.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "memory_copiers.hpp"

namespace cryptoaccel::devcrypto {

// The most requests of one user that wait for a slot; submit() refuses more.
inline constexpr std::size_t kMaxWaitingPerUser = 64;

class DeferredRequests {
 public:
  struct Job {
    uid_t user = 0;
    std::function<void()> run;     // serves the request and answers it
    std::function<void()> cancel;  // answers it unserved: the server stops
  };
  // Starts threads as jobs come, up to `max_threads` (at least 1).
  DeferredRequests(MemoryCopiers& copiers, unsigned max_threads, unsigned per_user);
  // stop()
  ~DeferredRequests();
  DeferredRequests(const DeferredRequests&) = delete;
  DeferredRequests& operator=(const DeferredRequests&) = delete;

  // Queues the job; false (and `job` untouched) when its user has
  // kMaxWaitingPerUser waiting already, or after stop().
  bool submit(Job& job);
  // Cancels every waiting job, ends the copiers' waits (the running jobs
  // then finish at once) and joins the threads. Idempotent.
  void stop();

 private:
  void serve();
  // The first waiting job whose user has a free slot; end() when none.
  std::deque<Job>::iterator next_runnable();

  MemoryCopiers& copiers_;
  const unsigned max_threads_;
  const unsigned per_user_;
  unsigned idle_ = 0;  // threads waiting for a job
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> waiting_;
  std::map<uid_t, unsigned> running_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace cryptoaccel::devcrypto
