#include "async_workers.hpp"

#include <openssl/async.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <new>
#include <system_error>

#include "async_wait.hpp"
#include "cryptoaccel/error.hpp"
#include "libcrypto_binding.hpp"

namespace cryptoaccel::provider {

// Shared by the paused job and the worker: whichever lets go last frees it,
// so an abandoned job leaves the worker nothing freed to write to.
struct AsyncWorkers::Task {
  Task(const std::function<void()>& w, std::shared_ptr<WaitFd> fd) : work(w), wait(std::move(fd)) {}
  std::function<void()> work;
  // The worker's share of the job's wait fd, taken by the worker that runs
  // the task and let go once it has signalled.
  std::shared_ptr<WaitFd> wait;
  std::exception_ptr failure;
  std::atomic<bool> done{false};

  void finish() noexcept {
    const std::shared_ptr<WaitFd> fd = std::move(wait);
    // The fd first: a job that drains a signal waits for `done` to follow.
    if (fd) fd->signal();
    done.store(true, std::memory_order_release);
  }
};

// Every live instance, for the fork handlers and the end of the process.
// The registry is never destroyed: a provider torn down by OPENSSL_cleanup
// at exit leaves it after the module's static destructors have run.
struct AsyncWorkersFork {
  static std::mutex& mutex() {
    static auto* m = new std::mutex;
    return *m;
  }
  static std::vector<AsyncWorkers*>& instances() {
    static auto* all = new std::vector<AsyncWorkers*>;
    return *all;
  }
  static void add(AsyncWorkers* w) {
    static std::once_flag registered;
    std::call_once(registered, [] {
      pthread_atfork(&prepare, &parent, &child);
      register_openssl_cleanup_handler();
    });
    std::lock_guard lock(mutex());
    instances().push_back(w);
  }
  static void remove(AsyncWorkers* w) {
    std::lock_guard lock(mutex());
    std::erase(instances(), w);
  }
  static void prepare() {
    mutex().lock();
    for (AsyncWorkers* w : instances()) w->lock_for_fork();
  }
  static void parent() {
    for (AsyncWorkers* w : instances()) w->unlock_in_parent();
    mutex().unlock();
  }
  static void child() {
    for (AsyncWorkers* w : instances()) w->reset_in_child();
    mutex().unlock();
  }
  // Before libcrypto frees what an operation uses (its RAND, its library
  // contexts): the operations running end, the queued ones fail, the
  // threads go.
  static void stop_all() noexcept {
    std::lock_guard lock(mutex());
    for (AsyncWorkers* w : instances()) w->stop();
  }
  // OpenSSL 3's OPENSSL_cleanup runs these handlers before it frees
  // anything, whether exit() or the application calls it. OpenSSL 4 has no
  // such function and frees all in its own destructor, after exit() has run
  // the module's static destructors (StopAtExit). The module is never
  // unloaded (-z nodelete), so the handler outlives any teardown.
  static void register_openssl_cleanup_handler() {
    using AtExit = int (*)(void (*)());
    if (auto at_exit = reinterpret_cast<AtExit>(optional_libcrypto_function("OPENSSL_atexit")))
      at_exit([] { stop_all(); });
  }
};

namespace {
// exit() runs the handlers registered last first: this one, registered when
// the module loads, before the OPENSSL_cleanup that libcrypto registered
// when it started. It takes the registry before it is constructed itself, so
// that nothing of it is destroyed first.
struct StopAtExit {
  StopAtExit() {
    (void)AsyncWorkersFork::mutex();
    (void)AsyncWorkersFork::instances();
  }
  ~StopAtExit() { AsyncWorkersFork::stop_all(); }
  StopAtExit(const StopAtExit&) = delete;
  StopAtExit& operator=(const StopAtExit&) = delete;
};
const StopAtExit stop_at_exit;
}  // namespace

AsyncWorkers::AsyncWorkers(unsigned count) : count_(count) {
  AsyncWorkersFork::add(this);
}

AsyncWorkers::~AsyncWorkers() {
  AsyncWorkersFork::remove(this);
  stop();
}

void AsyncWorkers::stop() noexcept {
  std::vector<std::unique_ptr<std::thread>> threads;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    // What no worker has taken fails now: the process is ending or the
    // provider is going, and the libcrypto it would run on with it.
    for (const auto& task : queue_) {
      task->failure = std::make_exception_ptr(DriverFailure(
          "the provider stopped (OpenSSL cleaned up or the process is exiting) before this "
          "private-key operation ran"));
      task->finish();
    }
    queue_.clear();
    threads.swap(threads_);
  }
  wake_.notify_all();
  // Each ends once its running operation does. A worker never stops its
  // own pool; should one ever get here, it is left to end by itself.
  for (const auto& t : threads) {
    if (t->get_id() == std::this_thread::get_id())
      t->detach();
    else
      t->join();
  }
}

void AsyncWorkers::lock_for_fork() {
  // No operation may be running at the fork: the child would inherit the
  // locks it holds (OpenSSL's, the driver's) held by a thread it does not
  // have. Those queued wait; the ones running end within one operation.
  std::unique_lock lock(mutex_);
  forking_ = true;
  idle_.wait(lock, [this] { return running_.empty(); });
  lock.release();
}

void AsyncWorkers::unlock_in_parent() {
  forking_ = false;
  mutex_.unlock();
  wake_.notify_all();
}

void AsyncWorkers::reset_in_child() {
  // The threads, and the operations queued for them, stayed in the parent
  // (none was running: lock_for_fork). Their std::thread objects are let go
  // without a call: the child's thread library has already reclaimed those
  // threads.
  for (auto& t : threads_) [[maybe_unused]] std::thread* gone = t.release();
  threads_.clear();
  started_ = false;
  const auto fail = [](const std::shared_ptr<Task>& task) {
    task->failure = std::make_exception_ptr(DriverFailure(
        "the process forked while this private-key operation was on a worker thread of the "
        "parent; the child has no such thread"));
    task->finish();
  };
  for (const auto& task : queue_) fail(task);
  queue_.clear();
  forking_ = false;
  // The parent's workers were waiting on these: the child inherits their
  // counts of waiters that it does not have, and a notify could then block
  // or be lost. Made anew, not destroyed (destroying one with waiters
  // waits for them); a condition variable holds no other resource.
  new (&wake_) std::condition_variable();
  new (&idle_) std::condition_variable();
  mutex_.unlock();
}

bool AsyncWorkers::start_threads() {
  // Called with mutex_ held.
  if (started_) return !threads_.empty();
  started_ = true;
  try {
    for (unsigned i = 0; i < count_; ++i)
      threads_.push_back(std::make_unique<std::thread>([this] { serve(); }));
  } catch (const std::system_error&) {
    // Fewer threads than asked still serve; none means running in the job.
  }
  return !threads_.empty();
}

void AsyncWorkers::serve() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || (!queue_.empty() && !forking_); });
    if (queue_.empty()) return;  // stopping, nothing left
    std::shared_ptr<Task> task = std::move(queue_.front());
    queue_.pop_front();
    running_.push_back(task);
    lock.unlock();
    try {
      task->work();
    } catch (...) {
      task->failure = std::current_exception();
    }
    lock.lock();
    std::erase(running_, task);
    task->finish();
    ++counts_.completed;
    if (running_.empty()) idle_.notify_all();
  }
}

bool AsyncWorkers::run_paused(const std::function<void()>& work) {
  ASYNC_JOB* job = ASYNC_get_current_job();
  if (job == nullptr) return false;
  std::shared_ptr<WaitFd> wait = job_wait_fd(job);
  if (wait == nullptr) return false;
  // Used only while this job runs, when its wait context (and the wait
  // context's share of the fd) is there; the job itself keeps no share.
  wait->drain();  // a signal left from before (a burst's) is none of this task's
  auto task = std::make_shared<Task>(work, std::move(wait));
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || !start_threads()) return false;
    queue_.push_back(task);
    counts_.peak_in_flight =
        std::max(counts_.peak_in_flight, static_cast<unsigned>(queue_.size() + running_.size()));
  }
  wake_.notify_one();
  // An application may resume a job before its fd is readable (s_server
  // tries every paused connection): pause again until the work is done.
  // The worker signals just before it sets `done`, so a signal drained here
  // means `done` follows within instructions: wait for it rather than pause
  // with nothing left to wake the job.
  const auto finished = [&task] { return task->done.load(std::memory_order_acquire); };
  while (!finished()) {
    const bool paused = ASYNC_pause_job() == 1;
    const std::shared_ptr<WaitFd> resumed = job_wait_fd(job);
    if (resumed == nullptr || resumed->drain() > 0 || !paused)
      while (!finished()) std::this_thread::yield();
  }
  if (task->failure) std::rethrow_exception(task->failure);
  return true;
}

AsyncWorkers::Counts AsyncWorkers::counts() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

}  // namespace cryptoaccel::provider
