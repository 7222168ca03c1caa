#include "gatherer.hpp"

#include <vector>

#include "thread_state.hpp"

namespace cryptoaccel::mb {
namespace {

// The most requests one thread takes from the queue at once: a few lane
// widths, so that a long queue is shared between the threads that wait on it.
constexpr std::size_t kMaxTaken = 64;

}  // namespace

bool Gatherer::enter_alone() noexcept {
  return callers_.fetch_add(1) == 0 && started_.load() == 0;
}

void Gatherer::run(std::span<Entry> entries) {
  if (entries.empty()) return;
  if (enter_alone()) {
    // Alone: no one could join these requests, and nothing is queued.
    bursts_.fetch_add(1, std::memory_order_relaxed);
    requests_.fetch_add(entries.size(), std::memory_order_relaxed);
    run_burst(route_, op_, entries);
    leave_fast_path();
    return;
  }
  run_queued_with_others(entries);
}

void Gatherer::run(std::span<Request> requests, const KeySchedule& keys,
                   std::vector<Entry>& scratch, BurstCount& counted) {
  if (requests.empty()) return;
  ++counted.bursts;
  counted.requests += requests.size();
  if (requests.size() >= width_) {
    run_burst(route_, op_, requests, keys);
    return;
  }
  if (enter_alone()) {
    run_burst(route_, op_, requests, keys);
    leave_fast_path();
    return;
  }
  --counted.bursts;  // counted by whoever runs the queue
  counted.requests -= requests.size();
  scratch.resize(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) scratch[i] = {&requests[i], &keys};
  run_queued_with_others(scratch);
}

void Gatherer::leave_fast_path() {
  callers_.fetch_sub(1);
  if (waiting_.load() != 0) {
    std::lock_guard lock(mutex_);
    changed_.notify_all();
  }
}

void Gatherer::run_queued_with_others(std::span<Entry> entries) {
  std::unique_lock lock(mutex_);
  waiting_.fetch_add(1);
  Ticket ticket{entries.size()};
  const auto now = Clock::now();
  for (Entry& e : entries) {
    e.ticket = &ticket;
    queue_.push_back(e);
    arrivals_.push_back(now);
  }
  bool waited = false;
  while (ticket.unfinished != 0) {
    if (queue_.empty()) {
      // Ours are in another caller's burst.
      changed_.wait(lock);
      continue;
    }
    const bool full = queue_.size() >= width_;
    // Company can come only from a caller running a burst now: one on the
    // fast path (inside, not queued) or one running the queue.
    const bool no_company_coming = callers_.load() == waiting_.load() && queue_runners_ == 0;
    const auto due = arrivals_.front() + deadline_;
    if (full || no_company_coming) {
      run_queued(lock, false);
      continue;
    }
    if (Clock::now() >= due) {
      run_queued(lock, true);
      continue;
    }
    if (!waited) {
      waited = true;
      waits_.fetch_add(1, std::memory_order_relaxed);
    }
    changed_.wait_until(lock, due);
  }
  waiting_.fetch_sub(1);
  callers_.fetch_sub(1);
}

void Gatherer::start(std::span<Entry> entries) {
  if (entries.empty()) return;
  std::unique_lock lock(mutex_);
  const auto now = Clock::now();
  for (Entry& e : entries) {
    queue_.push_back(e);
    arrivals_.push_back(now);
  }
  started_.fetch_add(entries.size());
  if (queue_.size() >= width_) run_queued(lock, false);
}

void Gatherer::flush() {
  std::unique_lock lock(mutex_);
  while (!queue_.empty()) run_queued(lock, false);
}

void Gatherer::run_queued(std::unique_lock<std::mutex>& lock, bool by_deadline) {
  ThreadState& state = this_thread_state();
  std::vector<Entry>& taken = state.taken;
  taken.clear();
  std::size_t started = 0;
  while (!queue_.empty() && taken.size() < kMaxTaken) {
    taken.push_back(queue_.front());
    if (taken.back().started != nullptr) ++started;
    queue_.pop_front();
    arrivals_.pop_front();
  }
  if (started != 0) started_.fetch_sub(started);
  ++queue_runners_;
  bursts_.fetch_add(1, std::memory_order_relaxed);
  requests_.fetch_add(taken.size(), std::memory_order_relaxed);
  if (by_deadline) deadlines_.fetch_add(1, std::memory_order_relaxed);
  lock.unlock();
  run_burst(route_, op_, taken);
  // Started entries' tickets first, without the lock: on_done may take
  // locks of its own (the provider wakes an OpenSSL job). `taken` stays
  // this thread's until the next burst it runs.
  for (Entry& e : taken)
    if (e.started != nullptr && e.started->unfinished.fetch_sub(1) == 1 && e.started->on_done)
      e.started->on_done(*e.started);
  lock.lock();
  --queue_runners_;
  for (Entry& e : taken)
    if (e.ticket != nullptr) --e.ticket->unfinished;
  changed_.notify_all();
}

void Gatherer::publish(const BurstCount& counted) noexcept {
  if (counted.bursts == 0) return;
  bursts_.fetch_add(counted.bursts, std::memory_order_relaxed);
  requests_.fetch_add(counted.requests, std::memory_order_relaxed);
}

GathererStats Gatherer::stats() const {
  const auto get = [](const std::atomic<std::uint64_t>& a) {
    return a.load(std::memory_order_relaxed);
  };
  return {.bursts = get(bursts_),
          .requests = get(requests_),
          .deadlines = get(deadlines_),
          .waits = get(waits_)};
}

}  // namespace cryptoaccel::mb
