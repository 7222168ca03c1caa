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
  if (requests.size() >= width_ || enter_alone()) {
    const bool entered = requests.size() < width_;
    ++counted.bursts;
    counted.requests += requests.size();
    run_burst(route_, op_, requests, keys);
    if (entered) leave_fast_path();
    return;
  }
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
  for (Entry& e : entries) e.ticket = &ticket;
  enqueue(entries, Clock::now());
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
    const auto due = queue_.front().arrival + deadline_;
    if (full || no_company_coming || Clock::now() >= due) {
      run_queued(lock);
      continue;
    }
    changed_.wait_until(lock, due);
  }
  waiting_.fetch_sub(1);
  callers_.fetch_sub(1);
}

void Gatherer::start(std::span<Entry> entries) {
  if (entries.empty()) return;
  std::unique_lock lock(mutex_);
  // No clock read: 15 ns of a 256-byte request that costs ~300 in all.
  enqueue(entries, Clock::time_point{});
  started_.fetch_add(entries.size());
  if (queue_.size() >= width_) run_queued(lock);
}

void Gatherer::flush() {
  std::unique_lock lock(mutex_);
  while (!queue_.empty()) run_queued(lock);
}

void Gatherer::withdraw(const KeySchedule* keys) noexcept {
  std::unique_lock lock(mutex_);
  std::size_t started = 0;
  for (auto it = queue_.begin(); it != queue_.end();) {
    Entry& e = it->entry;
    if (e.keys != keys) {
      ++it;
      continue;
    }
    e.request->status = ErrorCode::driver_failure;
    if (e.started != nullptr) {
      ++started;
      // on_done is not called: its owner is ending the session it started on.
      e.started->unfinished.fetch_sub(1, std::memory_order_acq_rel);
    }
    if (e.ticket != nullptr) --e.ticket->unfinished;
    it = queue_.erase(it);
  }
  if (started != 0) started_.fetch_sub(started);
  changed_.notify_all();
  changed_.wait(lock, [this] { return queue_runners_ == 0; });
}

void Gatherer::enqueue(std::span<Entry> entries, Clock::time_point arrival) {
  for (const Entry& e : entries) queue_.push_back({e, arrival});
}

void Gatherer::run_queued(std::unique_lock<std::mutex>& lock) {
  ThreadState& state = this_thread_state();
  std::vector<Entry>& taken = state.taken;
  taken.clear();
  std::size_t started = 0;
  while (!queue_.empty() && taken.size() < kMaxTaken) {
    taken.push_back(queue_.front().entry);
    if (taken.back().started != nullptr) ++started;
    queue_.pop_front();
  }
  if (started != 0) started_.fetch_sub(started);
  ++queue_runners_;
  bursts_.fetch_add(1, std::memory_order_relaxed);
  requests_.fetch_add(taken.size(), std::memory_order_relaxed);
  lock.unlock();
  run_burst(route_, op_, taken);
  // Started entries' tickets first, without the lock: on_done may take
  // locks of its own (the provider wakes an OpenSSL job). `taken` stays
  // this thread's until the next burst it runs. on_done is read before the
  // count goes down: a starter that waits for 0 alone may end the ticket
  // the moment it sees it.
  for (Entry& e : taken) {
    if (e.started == nullptr) continue;
    AsyncTicket& ticket = *e.started;
    const auto on_done = ticket.on_done;
    if (ticket.unfinished.fetch_sub(1, std::memory_order_acq_rel) == 1 && on_done != nullptr)
      on_done(ticket);
  }
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

BurstCount Gatherer::counts() const noexcept {
  return {.bursts = bursts_.load(std::memory_order_relaxed),
          .requests = requests_.load(std::memory_order_relaxed)};
}

}  // namespace cryptoaccel::mb
