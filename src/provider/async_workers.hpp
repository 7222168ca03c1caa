// Private-key operations of OpenSSL ASYNC jobs (`openssl speed
// -async_jobs N`, `s_server -async`, SSL_MODE_ASYNC): the job hands the
// operation to one of the provider's worker threads and pauses; the
// application runs its other jobs meanwhile, and resumes this one when the
// worker signals the job's wait fd. One application thread so keeps as
// many operations in flight as there are workers: on a device behind the
// kernel's keyring each worker waits in its own system call while the
// device works (the QAT provider's way to its gains).
//
// An application may abandon a paused job and free what it lent it (SSL_free
// of a paused handshake frees the buffers and the wait context): the work a
// worker runs owns everything it touches, its own copy of the input, room
// for the output and a share of the wait fd (async_wait.hpp); the job copies
// the result out once it is resumed.
//
// A fork child has none of the parent's threads: it starts its own on first
// use. fork() waits for the operations running on the workers to end, so
// that the child inherits no lock held by a thread it does not have; an
// operation still queued at the fork runs in the parent and fails in the
// child (with the reason) instead of leaving its job paused for ever.
//
// At exit, and in OpenSSL 3's OPENSSL_cleanup, the workers stop before
// libcrypto frees what their operations use: a job still queued fails.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace cryptoaccel::provider {

class AsyncWorkers {
 public:
  // `count` threads, started on first use.
  explicit AsyncWorkers(unsigned count);
  // stop().
  ~AsyncWorkers();
  AsyncWorkers(const AsyncWorkers&) = delete;
  AsyncWorkers& operator=(const AsyncWorkers&) = delete;

  // Inside an ASYNC job that has a wait fd: runs a copy of `work` on a worker
  // with the job paused, and returns true once it has run, having rethrown
  // what it threw. `work` must own what it reads and writes: if the job is
  // abandoned the copy runs to its end after the caller's memory is gone.
  // False, having run nothing, outside a job (or when no worker thread could
  // be started): the caller runs the work itself.
  bool run_paused(const std::function<void()>& work);

  // For the stats: operations that ran on a worker, and the most that were
  // queued or running at once.
  struct Counts {
    unsigned long long completed = 0;
    unsigned peak_in_flight = 0;
  };
  Counts counts() const;

  // Fails the operations queued (their jobs resume with the reason), waits
  // for the running ones and ends the threads; later operations run in
  // their jobs. At the end of the process before libcrypto cleans up, and
  // when the provider goes.
  void stop() noexcept;

 private:
  struct Task;
  bool start_threads();
  void serve();
  // pthread_atfork's three handlers, over every instance (AsyncWorkersFork).
  friend struct AsyncWorkersFork;
  void lock_for_fork();
  void unlock_in_parent();
  void reset_in_child();

  const unsigned count_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;  // running_ became empty
  std::deque<std::shared_ptr<Task>> queue_;
  std::vector<std::shared_ptr<Task>> running_;
  // Pointers so that a fork child can let go of the parent's threads
  // without a call on them (they do not exist there).
  std::vector<std::unique_ptr<std::thread>> threads_;
  bool started_ = false;
  bool stopping_ = false;
  bool forking_ = false;  // no operation starts while a fork waits
  Counts counts_;
};

}  // namespace cryptoaccel::provider
