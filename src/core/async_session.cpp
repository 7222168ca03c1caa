// AsyncSession: a queue of request chunks, worker threads that each own a
// SessionCore (sessions serve one thread at a time), and, with a timeout, a
// watchdog that re-queues the requests of a driver call that takes too long.
#include "cryptoaccel/async.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "cryptoaccel/session.hpp"
#include "request_check.hpp"
#include "session_core.hpp"

namespace cryptoaccel {
namespace {

using Clock = detail::DriverHealth::Clock;
using ByteVector = std::vector<std::uint8_t>;

// Requests a worker takes from the queue at once: enough to fill a driver
// that keeps 8 in flight twice.
constexpr std::size_t kChunk = 16;

// Private copies of one request's buffers, for the attempts that must not
// touch the caller's memory (timeout, verification).
struct Bounce {
  ByteVector iv, aad, in, out, tag;
  std::size_t out_size = 0;  // the output the request asks for
  Request request;
  // `with_output` false: the inputs only (out stays empty), for a job's
  // copy, whose attempts each write an output of their own.
  void take(const Request& r, bool with_output = true) {
    iv.assign(r.iv.begin(), r.iv.end());
    aad.assign(r.aad.begin(), r.aad.end());
    in.assign(r.in.begin(), r.in.end());
    out_size = r.op == Operation::digest ? r.out.size() : r.in.size();
    out.assign(with_output ? out_size : 0, 0);
    tag.assign(r.tag.begin(), r.tag.end());
    request = r;
    request.iv = iv;
    request.aad = aad;
    request.in = in;
    request.out = out;
    request.tag = tag;
  }
};

// One submitted request. Shared by every attempt at it, so that a worker
// stuck in a timed-out call still finds it when it returns.
//
// Once the first attempt has claimed and delivered it, the caller may free
// the request and its buffers at any moment: an attempt that started
// earlier must never read them again. So where a second attempt is possible
// (a timeout), the job keeps its own copy of the request (`inputs`), taken
// on the caller's thread at submit, and attempts read only that.
struct Job {
  Request* request;  // the caller's: touched only by whoever claims the job
  std::shared_ptr<Completion> completion;
  std::atomic<bool> claimed{false};  // completed: only the first attempt to claim it delivers
  Bounce inputs;                     // with bounce: the request's own copy
};

struct Chunk {
  std::vector<std::shared_ptr<Job>> jobs;
  const detail::RegisteredDriver* avoid = nullptr;  // timed out on these requests
};

struct Worker {
  std::thread thread;
  std::unique_ptr<detail::SessionCore> core;
  std::unique_ptr<detail::SessionCore> soft;  // verification, made on first use
  detail::SessionCore::Watch watch;
  std::shared_ptr<Chunk> current;  // guarded by Impl::mutex
  bool abandoned = false;          // guarded by Impl::mutex: a replacement took over
  bool exited = false;             // guarded by Impl::mutex: work() returned, join() is prompt
  std::uint64_t completed_here = 0;
};

// One attempt's outputs, over a job's private inputs: concurrent attempts
// at one job (a stuck call and its re-run) read the same inputs and each
// write their own output and tag.
struct Attempt {
  ByteVector out, tag;
  Request request;
  explicit Attempt(const Bounce& inputs)
      : out(inputs.out_size, 0),
        tag(inputs.request.tag.begin(), inputs.request.tag.end()),
        request(inputs.request) {
    request.out = out;
    request.tag = tag;
  }
};

}  // namespace

struct AsyncSession::Impl {
  Impl(std::string_view name, std::span<const std::uint8_t> key_bytes, const AsyncOptions& o)
      : algorithm(algorithm_or_throw(name)),
        options(o),
        framework(o.framework ? *o.framework : Framework::global()),
        key(key_bytes),
        bounce(o.timeout.count() > 0 || o.verify_every > 0) {
    if (o.workers == 0 || o.workers > 64)
      throw InvalidArgument("AsyncOptions::workers must be 1 to 64, not " +
                            std::to_string(o.workers));
    soft_driver = framework.impl().registry.find("soft");
    // The first core checks the key and the pinned driver, throwing as a
    // session's constructor does.
    for (unsigned i = 0; i < o.workers; ++i) start_worker();
    pinned = workers.front()->core->pinned();
    if (o.timeout.count() > 0) watchdog = std::thread([this] { watch(); });
  }

  ~Impl() {
    wait();
    {
      std::lock_guard lock(mutex);
      stopping = true;
    }
    work_ready.notify_all();
    watchdog_wake.notify_all();
    if (watchdog.joinable()) watchdog.join();
    for (auto& w : workers)
      if (w->thread.joinable()) w->thread.join();
  }

  // Throws (and adds nothing) when the core or the thread cannot be made.
  void start_worker() {
    auto w = std::make_unique<Worker>();
    w->core = std::make_unique<detail::SessionCore>(
        algorithm, key.span(), SessionOptions{.framework = &framework, .driver = options.driver});
    Worker* raw = w.get();
    workers.push_back(std::move(w));
    try {
      raw->thread = std::thread([this, raw] { work(*raw); });
    } catch (...) {
      workers.pop_back();  // no thread: it must not count as a worker
      throw;
    }
  }

  // Joins and forgets the abandoned workers whose stuck call has returned.
  // Until joined, a finished thread keeps its stack (8 MiB by default): one
  // per timeout, for the session's whole life, exhausted a 32-bit address
  // space after a few hundred timeouts. Called with `mutex` held; a worker
  // sets `exited` just before it returns, so the joins do not wait long.
  void reap_exited() {
    std::erase_if(workers, [](const std::unique_ptr<Worker>& w) {
      if (!w->exited) return false;
      if (w->thread.joinable()) w->thread.join();
      return true;
    });
  }

  void submit(std::span<Request> batch, Completion on_complete) {
    auto completion = std::make_shared<Completion>(std::move(on_complete));
    std::vector<std::shared_ptr<Job>> valid;
    for (Request& r : batch) {
      auto job = std::make_shared<Job>();
      job->request = &r;
      job->completion = completion;
      submitted.fetch_add(1, std::memory_order_relaxed);
      outstanding.fetch_add(1, std::memory_order_relaxed);
      r.continues = false;
      if (bounce) job->inputs.take(r, false);
      if (const ErrorCode status = detail::check_request(algorithm, r); status != ErrorCode::ok) {
        Request copy = r;
        copy.status = status;
        deliver(*job, copy);  // completes at once, on this thread
        continue;
      }
      if ((algorithm.kind == AlgorithmKind::cipher || algorithm.kind == AlgorithmKind::aead) &&
          detail::output_ahead_of_input(r))
        detail::move_input_to_output(r);
      valid.push_back(std::move(job));
    }
    if (valid.empty()) return;
    {
      std::lock_guard lock(mutex);
      for (std::size_t i = 0; i < valid.size(); i += kChunk) {
        auto chunk = std::make_shared<Chunk>();
        chunk->jobs.assign(
            valid.begin() + static_cast<std::ptrdiff_t>(i),
            valid.begin() + static_cast<std::ptrdiff_t>(std::min(valid.size(), i + kChunk)));
        queue.push_back(std::move(chunk));
      }
    }
    work_ready.notify_all();
  }

  void work(Worker& w) {
    for (;;) {
      std::shared_ptr<Chunk> chunk;
      {
        std::unique_lock lock(mutex);
        work_ready.wait(lock, [&] { return stopping || w.abandoned || !queue.empty(); });
        if (w.abandoned) {  // replaced
          w.exited = true;
          return;
        }
        if (queue.empty()) return;  // stopping with nothing left
        chunk = std::move(queue.front());
        queue.pop_front();
        w.current = chunk;
      }
      execute(w, *chunk);
      std::lock_guard lock(mutex);
      w.current.reset();
      if (w.abandoned) {
        w.exited = true;  // the watchdog joins it
        return;
      }
    }
  }

  void execute(Worker& w, const Chunk& chunk) {
    std::vector<std::shared_ptr<Job>> jobs;
    for (const auto& j : chunk.jobs)
      if (!j->claimed.load(std::memory_order_acquire)) jobs.push_back(j);
    if (jobs.empty()) return;
    if (pinned != nullptr && chunk.avoid == pinned) {
      // Timed out on the only driver it may use.
      for (const auto& j : jobs) {
        Request copy = j->inputs.request;
        copy.status = ErrorCode::driver_failure;
        deliver(*j, copy);
      }
      return;
    }
    std::vector<Attempt> attempts;
    attempts.reserve(bounce ? jobs.size() : 0);
    std::vector<Request> work(jobs.size());
    std::vector<detail::RegisteredDriver*> served(jobs.size(), nullptr);
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      if (bounce) {
        work[k] = attempts.emplace_back(jobs[k]->inputs).request;
      } else {
        // No timeout: this is the job's only attempt, so it owns the
        // caller's request until it delivers.
        const Request& r = *jobs[k]->request;
        work[k] = r;
        if (r.op != Operation::digest) work[k].out = r.out.first(r.in.size());
      }
    }
    for (Request& r : work) {  // as run_batch takes them
      r.continues = false;
      r.status = ErrorCode::ok;
    }
    w.core->run_batch(work, chunk.avoid, &w.watch, served.data());
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      if (bounce && options.verify_every > 0 && work[k].status != ErrorCode::driver_failure &&
          served[k] != nullptr && served[k] != soft_driver &&
          ++w.completed_here % options.verify_every == 0)
        verify(w, work[k], served[k]);
      deliver(*jobs[k], work[k]);
    }
  }

  // Recomputes on soft; on a difference, soft's result replaces the driver's.
  void verify(Worker& w, Request& result, detail::RegisteredDriver* driver) {
    if (soft_driver == nullptr || soft_driver->enabled[index_of(algorithm.id)] == nullptr) return;
    try {
      if (!w.soft)
        w.soft = std::make_unique<detail::SessionCore>(
            algorithm, key.span(), SessionOptions{.framework = &framework, .driver = "soft"});
      Bounce check;
      check.take(result);
      // The tag of an open is an input: the caller's, unchanged in result.
      ErrorCode status;
      try {
        status = w.soft->run(check.request);
      } catch (const Error& e) {
        status = e.code();
      }
      verified.fetch_add(1, std::memory_order_relaxed);
      const bool same_status = status == result.status;
      const bool compare_output =
          status == ErrorCode::ok && !(result.op == Operation::decrypt &&
                                       algorithm.kind == AlgorithmKind::aead && !same_status);
      const bool same = same_status &&
                        (!compare_output || (constant_time_equal(check.request.out, result.out) &&
                                             (result.op == Operation::decrypt ||
                                              constant_time_equal(check.request.tag, result.tag))));
      if (same) return;
      mismatches.fetch_add(1, std::memory_order_relaxed);
      driver->health.failed();
      std::copy(check.request.out.begin(), check.request.out.end(), result.out.begin());
      if (result.op != Operation::decrypt)
        std::copy(check.request.tag.begin(), check.request.tag.end(), result.tag.begin());
      result.status = status;
    } catch (...) {
      // No verdict (soft could not run): deliver the driver's result.
    }
  }

  // Completes a job with `result`, unless another attempt already did.
  void deliver(Job& job, const Request& result) {
    if (job.claimed.exchange(true, std::memory_order_acq_rel)) {
      late_results.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    Request& r = *job.request;
    if (bounce && result.status == ErrorCode::ok) {
      if (r.op == Operation::digest)
        std::copy(result.out.begin(), result.out.end(), r.out.begin());
      else
        std::copy(result.out.begin(), result.out.begin() + static_cast<std::ptrdiff_t>(r.in.size()),
                  r.out.begin());
      if (r.op == Operation::encrypt && algorithm.kind == AlgorithmKind::aead)
        std::copy(result.tag.begin(), result.tag.end(), r.tag.begin());
    }
    // No unauthenticated plaintext is ever released.
    if (result.status != ErrorCode::ok && algorithm.kind == AlgorithmKind::aead &&
        r.op == Operation::decrypt && !r.out.empty())
      secure_wipe(r.out.data(), std::min(r.out.size(), r.in.size()));
    r.status = result.status;
    completed.fetch_add(1, std::memory_order_relaxed);
    if (result.status != ErrorCode::ok) failed.fetch_add(1, std::memory_order_relaxed);
    if (*job.completion) {
      try {
        (*job.completion)(r);
      } catch (...) {
        // A callback must not throw; its exception cannot reach anyone.
      }
    }
    if (outstanding.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard lock(mutex);
      all_done.notify_all();
    }
  }

  // Every quarter of the timeout: a worker whose driver call has run longer
  // than the timeout is abandoned, its driver quarantined, its unfinished
  // requests queued first with that driver avoided, and a new worker started.
  // Requests that no other driver serves stay with the call (pinned ones
  // fail: the caller allowed no other driver).
  void watch() {
    const auto period =
        std::max<Clock::duration>(options.timeout / 4, std::chrono::milliseconds(1));
    std::unique_lock lock(mutex);
    while (!stopping) {
      watchdog_wake.wait_for(lock, period);
      if (stopping) break;
      reap_exited();
      const auto now = Clock::now().time_since_epoch().count();
      const auto limit = std::chrono::duration_cast<Clock::duration>(options.timeout).count();
      const std::size_t count = workers.size();
      for (std::size_t i = 0; i < count; ++i) {
        Worker& w = *workers[i];
        const auto since = w.watch.since.load(std::memory_order_relaxed);
        if (w.abandoned || since == 0 || now - since <= limit || !w.current) continue;
        detail::RegisteredDriver* driver = w.watch.driver.load(std::memory_order_acquire);
        if (driver == nullptr) continue;
        auto retry = std::make_shared<Chunk>();
        retry->avoid = driver;
        for (const auto& j : w.current->jobs)
          if (!j->claimed.load(std::memory_order_acquire) &&
              (pinned != nullptr || served_elsewhere(*j, driver)))
            retry->jobs.push_back(j);
        // Nowhere else to go: re-running would only fail the requests (no
        // driver left for them) where the call may still succeed. They stay
        // with it, as without a timeout.
        if (retry->jobs.empty()) continue;
        // The replacement first: without one (no thread to be had), this
        // worker is not abandoned, keeps its requests as without a timeout
        // and serves the queue again once its call returns; the next round
        // tries again. (Abandoning it anyway left the queue to workers that
        // might all be abandoned: nobody ever took it, wait() never returned.)
        try {
          start_worker();
        } catch (...) {
          continue;
        }
        w.abandoned = true;
        driver->health.quarantine();
        timeouts.fetch_add(retry->jobs.size(), std::memory_order_relaxed);
        queue.push_front(std::move(retry));
      }
      work_ready.notify_all();
    }
  }

  // Could a driver other than `stuck` serve `job`? Drivers in quarantine
  // count: they stay candidates, last.
  bool served_elsewhere(const Job& job, const detail::RegisteredDriver* stuck) const noexcept {
    const Request& r = job.inputs.request;
    const std::size_t a = index_of(algorithm.id);
    for (const detail::RegisteredDriver* d :
         framework.impl().dispatcher.candidates(algorithm.id, r.in.size())) {
      const Capability* c = d->enabled[a];
      if (d != stuck && c != nullptr && detail::covers(*c, r) && c->key_sizes.contains(key.size()))
        return true;
    }
    return false;
  }

  void wait() {
    std::unique_lock lock(mutex);
    all_done.wait(lock, [&] { return outstanding.load(std::memory_order_acquire) == 0; });
  }

  bool wait_for(std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex);
    return all_done.wait_for(lock, limit,
                             [&] { return outstanding.load(std::memory_order_acquire) == 0; });
  }

  const Algorithm& algorithm;
  const AsyncOptions options;
  Framework& framework;
  SecretBytes key;
  const bool bounce;
  detail::RegisteredDriver* soft_driver = nullptr;
  detail::RegisteredDriver* pinned = nullptr;

  std::mutex mutex;
  std::condition_variable work_ready, all_done, watchdog_wake;
  std::deque<std::shared_ptr<Chunk>> queue;
  std::vector<std::unique_ptr<Worker>> workers;
  bool stopping = false;
  std::thread watchdog;

  std::atomic<std::uint64_t> outstanding{0}, submitted{0}, completed{0}, failed{0}, timeouts{0},
      verified{0}, mismatches{0}, late_results{0};
};

AsyncSession::AsyncSession(std::string_view algorithm, std::span<const std::uint8_t> key,
                           const AsyncOptions& options)
    : impl_(std::make_unique<Impl>(algorithm, key, options)) {}

AsyncSession::~AsyncSession() = default;

void AsyncSession::submit(std::span<Request> batch, Completion on_complete) {
  impl_->submit(batch, std::move(on_complete));
}

void AsyncSession::wait() {
  impl_->wait();
}

bool AsyncSession::wait_for(std::chrono::milliseconds limit) {
  return impl_->wait_for(limit);
}

bool AsyncSession::poll() const {
  return impl_->outstanding.load(std::memory_order_acquire) == 0;
}

std::uint64_t AsyncSession::outstanding() const {
  return impl_->outstanding.load(std::memory_order_acquire);
}

AsyncStats AsyncSession::stats() const {
  const auto get = [](const std::atomic<std::uint64_t>& a) {
    return a.load(std::memory_order_relaxed);
  };
  std::uint64_t threads = 0;
  {
    std::lock_guard lock(impl_->mutex);
    threads = impl_->workers.size();
  }
  return {.submitted = get(impl_->submitted),
          .completed = get(impl_->completed),
          .failed = get(impl_->failed),
          .timeouts = get(impl_->timeouts),
          .verified = get(impl_->verified),
          .mismatches = get(impl_->mismatches),
          .late_results = get(impl_->late_results),
          .threads = threads};
}

}  // namespace cryptoaccel
