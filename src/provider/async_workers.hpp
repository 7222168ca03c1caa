// Private-key operations of OpenSSL ASYNC jobs (`openssl speed
// -async_jobs N`, `s_server -async`, SSL_MODE_ASYNC): the job hands the
// operation to one of the provider's worker threads and pauses; the
// application runs its other jobs meanwhile, and resumes this one when the
// worker signals the job's wait fd. One application thread so keeps as
// many operations in flight as there are workers: on a device behind the
// kernel's keyring each worker waits in its own system call while the
// device works (the QAT provider's way to its gains).
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cryptoaccel::provider {

class AsyncWorkers {
 public:
  // `count` threads, started on first use.
  explicit AsyncWorkers(unsigned count) : count_(count) {}
  // Waits for the operations queued (their jobs are paused on them) and
  // stops the threads.
  ~AsyncWorkers();
  AsyncWorkers(const AsyncWorkers&) = delete;
  AsyncWorkers& operator=(const AsyncWorkers&) = delete;

  // Inside an ASYNC job that has a wait fd: runs `work` on a worker with
  // the job paused, and returns true once it has run, having rethrown what
  // it threw. False, having run nothing, outside a job (or when no worker
  // thread could be started): the caller runs the work itself.
  bool run_paused(const std::function<void()>& work);

  // For the stats: operations that ran on a worker, and the most that were
  // queued or running at once.
  struct Counts {
    unsigned long long completed = 0;
    unsigned peak_in_flight = 0;
  };
  Counts counts() const;

 private:
  struct Task;
  bool start_threads();
  void serve();

  const unsigned count_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Task*> queue_;
  std::vector<std::thread> threads_;
  bool started_ = false;
  bool stopping_ = false;
  unsigned in_flight_ = 0;
  Counts counts_;
};

}  // namespace cryptoaccel::provider
