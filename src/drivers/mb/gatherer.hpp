// Gathering: independent requests of one route and direction, from any
// number of threads and sessions, meet in one burst. A caller's requests
// join the queue; a caller that finds it full enough (the lane width), or
// finds that no one else could still add to it, runs what is queued on its
// own thread; otherwise it waits, for at most the flush deadline after the
// oldest queued request arrived, and then runs it. So a lone request never
// waits for company it will not get: company can come only from a caller
// that is running a burst right now (and will be back) or from outside,
// and only the first is waited for.
//
// Every request is run exactly once, by one thread, and its caller returns
// only when all of its own have run.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <vector>

#include "bursts.hpp"
#include "cryptoaccel/driver/driver.hpp"

namespace cryptoaccel::mb {

struct Ticket {
  std::size_t unfinished = 0;  // guarded by the gatherer's mutex
};

class Gatherer {
 public:
  using Clock = std::chrono::steady_clock;

  Gatherer(Route route, Operation op, std::size_t width, std::chrono::microseconds deadline)
      : route_(route), op_(op), width_(width), deadline_(deadline) {}

  // Runs `entries` (their requests' statuses set) with whatever else is
  // queued; returns when every one of them has run.
  void run(std::span<Entry> entries);
  // The same for one session's batch, all with `keys`. A batch a lane width
  // deep needs no company and offers none: it runs at once, outside the
  // gatherer's counts. Alone, it runs without making entries; otherwise it
  // queues them from `scratch`. The bursts run on the fast paths are added
  // to `counted` (the session's, published when it ends: no atomic add per
  // burst), the others to the gatherer's own counts.
  void run(std::span<Request> requests, const KeySchedule& keys, std::vector<Entry>& scratch,
           BurstCount& counted);
  // Adds a session's counts (run) to the gatherer's.
  void publish(const BurstCount& counted) noexcept;

  // Queues `entries` (each with `started` set) and returns at once, unless
  // the queue then holds a lane width: this thread runs that burst first.
  void start(std::span<Entry> entries);
  // Runs everything queued now, on this thread.
  void flush();
  // For a session that ends (its key schedule goes with it): takes its
  // entries out of the queue, their requests failed (driver_failure) and
  // their tickets counted down, and waits for the bursts running now, which
  // may hold some. A request of an OpenSSL job that the application
  // abandoned, freeing the context, so never runs with freed keys.
  void withdraw(const KeySchedule* keys) noexcept;

  // Bursts run and the requests in them, sessions' published counts included.
  BurstCount counts() const noexcept;

 private:
  // Leaves after running alone: wakes whoever queued meanwhile.
  void leave_fast_path();
  // Joins the queue (another caller is inside) and returns when every one of
  // `entries` has run.
  void run_queued_with_others(std::span<Entry> entries);
  // Takes up to a burst's worth of the queue and runs it, the lock released
  // meanwhile; then counts its entries' tickets down. Returns with the lock
  // held.
  void run_queued(std::unique_lock<std::mutex>& lock);
  // Appends `entries` to the queue, all arrived now (the lock held).
  void enqueue(std::span<Entry> entries, Clock::time_point arrival);
  // The fast path is open only to a caller alone with an empty queue.
  bool enter_alone() noexcept;

  const Route route_;
  const Operation op_;
  const std::size_t width_;
  const std::chrono::microseconds deadline_;

  // A caller alone runs its requests without the lock (the fast path).
  // Queued entries belong to callers still inside or were started (and
  // counted in started_), so with both at 0 the queue is empty. Both counters are sequentially
  // consistent: a caller that finds another inside and decides to wait, and that other deciding
  // whom to wake as it leaves, cannot miss each other.
  std::atomic<unsigned> callers_{0};     // threads inside run()
  std::atomic<unsigned> waiting_{0};     // of those, on the slow path (queued)
  std::atomic<std::size_t> started_{0};  // started entries queued, not yet taken

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  struct Queued {
    Entry entry;
    // The deadline counts from here. Started entries (an ASYNC job's) have
    // the clock's epoch: their owners flush them at their next turn, and a
    // caller waiting behind one need not wait for company either.
    Clock::time_point arrival;
  };
  std::deque<Queued> queue_;    // guarded by mutex_
  unsigned queue_runners_ = 0;  // slow-path callers running a burst, guarded by mutex_
  std::atomic<std::uint64_t> bursts_{0}, requests_{0};
};

}  // namespace cryptoaccel::mb
