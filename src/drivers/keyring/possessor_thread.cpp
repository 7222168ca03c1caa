#include "possessor_thread.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <condition_variable>
#include <mutex>
#include <new>

#include "thread_identity.hpp"

namespace cryptoaccel::keyring {
namespace {

// Cancellation deferred for a scope: the calls here read /proc and wait
// for the possessor, both cancellation points, inside noexcept code that a
// cancellation's unwinding would end in std::terminate. A pthread_cancel()
// takes effect at the caller's next cancellation point instead.
class CancelDeferred {
 public:
  CancelDeferred() noexcept { pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &former_); }
  ~CancelDeferred() { pthread_setcancelstate(former_, nullptr); }
  CancelDeferred(const CancelDeferred&) = delete;
  CancelDeferred& operator=(const CancelDeferred&) = delete;

 private:
  int former_ = PTHREAD_CANCEL_ENABLE;
};

// One request, on the caller's stack: the caller waits until it is done.
struct Job {
  KeyResult (*call)(void*) = nullptr;
  void* context = nullptr;
  const ThreadIdentity* caller = nullptr;
  KeyResult result{.value = 0, .error = EACCES};
  bool done = false;
  std::condition_variable finished;
  Job* next = nullptr;
};

// A possessor and its queue. Never destroyed: a thread may still be
// waiting on it while the process exits (static destructors run before the
// threads end), and a forked child may inherit its mutex locked by a
// thread the child does not have; the child never touches it (the pid
// says whose it is) and starts its own.
struct Possessor {
  pid_t pid = getpid();
  std::mutex mutex;
  std::condition_variable wake;
  Job* head = nullptr;
  Job* tail = nullptr;

  [[noreturn]] void serve() noexcept {
    // Its own identity, read afresh for each call (a setresuid() of the
    // process reaches this thread too); on the heap, off its small stack.
    auto* self = new (std::nothrow) ThreadIdentity;
    std::unique_lock lock(mutex);
    for (;;) {
      wake.wait(lock, [this] { return head != nullptr; });
      Job* job = head;
      head = job->next;
      if (head == nullptr) tail = nullptr;
      lock.unlock();
      // Only for a caller refused for what it does not possess, with the
      // credentials this thread has now (thread_identity.hpp): never a
      // way around the kernel's answer to that thread.
      KeyResult result{.value = 0, .error = EACCES};
      if (self != nullptr) {
        identify_this_thread(*self);
        if (may_act_for(*self, *job->caller)) result = job->call(job->context);
      }
      lock.lock();
      job->result = result;
      job->done = true;
      // Under the lock: the caller cannot return (and take `finished` off
      // its stack) before the notification is over.
      job->finished.notify_one();
    }
  }

  KeyResult run(KeyResult (*call)(void*), void* context, const ThreadIdentity& caller) noexcept {
    Job job;
    job.call = call;
    job.context = context;
    job.caller = &caller;
    // Called with cancellation deferred (on_possessor): a cancellation in
    // the wait would also leave the job queued on a stack that is gone.
    std::unique_lock lock(mutex);
    (tail == nullptr ? head : tail->next) = &job;
    tail = &job;
    wake.notify_one();
    job.finished.wait(lock, [&job] { return job.done; });
    return job.result;
  }
};

// This process's possessors: one for the process keyring, and one more
// when a shared keyring could not be linked under it (kernel_keys.cpp).
// A forked child empties them (forget_parents_possessors); slots of
// another pid are also taken over, should a child have been made by a raw
// clone that runs no fork handler. Atomics, not a lock: a child must not
// wait on a lock its parent's threads held at the fork.
std::array<std::atomic<Possessor*>, 4> possessors{};

// In a forked child: its parent's possessors are threads it does not have.
// Without this, a descendant given its ancestor's pid again (pids are
// reused) would wait for a thread that is not there.
void forget_parents_possessors() {
  for (auto& slot : possessors) slot.store(nullptr);
}

// Registered when the library is loaded (see kernel_keys.cpp).
const bool forgotten_in_children = pthread_atfork(nullptr, nullptr, forget_parents_possessors) == 0;

void* serve(void* possessor) {
  static_cast<Possessor*>(possessor)->serve();
}

}  // namespace

void start_possessor() noexcept {
  (void)forgotten_in_children;
  const CancelDeferred deferred;
  // A process with one thread has no thread that lacks the keyring just
  // made: every thread it starts from now on inherits it. No possessor,
  // so a single-threaded program stays single-threaded (unshare(2) of a
  // user namespace, for one, refuses a process with several threads).
  if (!other_threads_running()) return;
  auto* possessor = new (std::nothrow) Possessor;
  if (possessor == nullptr) return;
  // Detached, on a small stack (it runs keyctl calls only), with every
  // signal blocked so that none meant for the application's threads is
  // delivered to it.
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attributes, std::max<std::size_t>(PTHREAD_STACK_MIN, 64 * 1024));
  sigset_t all, former;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &former);
  pthread_t thread;
  const int started = pthread_create(&thread, &attributes, serve, possessor);
  pthread_sigmask(SIG_SETMASK, &former, nullptr);
  pthread_attr_destroy(&attributes);
  if (started != 0) {  // EAGAIN: no possessor, calls fail as before
    delete possessor;
    return;
  }
  pthread_setname_np(thread, "cryptoaccel-key");
  const pid_t self = getpid();
  for (auto& slot : possessors) {
    Possessor* seen = slot.load();
    while (seen == nullptr || seen->pid != self)
      if (slot.compare_exchange_weak(seen, possessor)) return;  // a parent's is left, never freed
  }
  // More keyrings than slots (never, by kernel_keys.cpp): the thread serves nobody.
}

KeyResult on_possessor(KeyResult (*call)(void*), void* context) noexcept {
  const pid_t self = getpid();
  KeyResult result{.value = 0, .error = EACCES};
  const CancelDeferred deferred;
  ThreadIdentity caller;
  bool identified = false;
  for (const auto& slot : possessors) {
    Possessor* possessor = slot.load();
    if (possessor == nullptr || possessor->pid != self) continue;
    if (!identified) {
      identify_this_thread(caller);
      if (!caller.readable) return result;
      identified = true;
    }
    result = possessor->run(call, context, caller);
    if (result.error != EACCES) return result;
  }
  return result;
}

}  // namespace cryptoaccel::keyring
