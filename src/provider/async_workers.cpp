#include "async_workers.hpp"

#include <openssl/async.h>

#include <algorithm>
#include <atomic>
#include <system_error>

#include "async_wait.hpp"

namespace cryptoaccel::provider {

// Lives on the paused job's own stack until `done`: the worker must not
// touch it after setting that.
struct AsyncWorkers::Task {
  const std::function<void()>* work;
  int wait_fd;
  std::exception_ptr failure;
  std::atomic<bool> done{false};
};

AsyncWorkers::~AsyncWorkers() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

bool AsyncWorkers::start_threads() {
  // Called with mutex_ held.
  if (started_) return !threads_.empty();
  started_ = true;
  try {
    for (unsigned i = 0; i < count_; ++i) threads_.emplace_back([this] { serve(); });
  } catch (const std::system_error&) {
    // Fewer threads than asked still serve; none means running in the job.
  }
  return !threads_.empty();
}

void AsyncWorkers::serve() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    Task* task = queue_.front();
    queue_.pop_front();
    lock.unlock();
    try {
      (*task->work)();
    } catch (...) {
      task->failure = std::current_exception();
    }
    // The fd first: once `done` is seen the job may finish and its wait
    // context close the descriptor.
    signal_wait_fd(task->wait_fd);
    task->done.store(true, std::memory_order_release);
    lock.lock();
    --in_flight_;
    ++counts_.completed;
  }
}

bool AsyncWorkers::run_paused(const std::function<void()>& work) {
  ASYNC_JOB* job = ASYNC_get_current_job();
  if (job == nullptr) return false;
  const int fd = job_wait_fd(job);
  if (fd < 0) return false;
  Task task{&work, fd, nullptr};
  drain_wait_fd(fd);  // a signal left from before is none of this task's
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || !start_threads()) return false;
    queue_.push_back(&task);
    counts_.peak_in_flight = std::max(counts_.peak_in_flight, ++in_flight_);
  }
  wake_.notify_one();
  // An application may resume a job before its fd is readable (s_server
  // tries every paused connection): pause again until the work is done.
  // The worker signals just before it sets `done`, so a signal drained here
  // means `done` follows within instructions: wait for it rather than pause
  // with nothing left to wake the job.
  const auto finished = [&task] { return task.done.load(std::memory_order_acquire); };
  while (!finished()) {
    const bool paused = ASYNC_pause_job() == 1;
    if (drain_wait_fd(fd) > 0 || !paused)
      while (!finished()) std::this_thread::yield();
  }
  if (task.failure) std::rethrow_exception(task.failure);
  return true;
}

AsyncWorkers::Counts AsyncWorkers::counts() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

}  // namespace cryptoaccel::provider
