#include "deferred_requests.hpp"

#include <algorithm>
#include <system_error>

namespace cryptoaccel::devcrypto {
namespace {

// How often a thread with only blocked jobs looks again whether a stuck
// copier has ended (nothing tells it).
constexpr std::chrono::milliseconds kRecheck{100};

}  // namespace

DeferredRequests::DeferredRequests(MemoryCopiers& copiers, unsigned max_threads,
                                   unsigned per_user)
    : copiers_(copiers), max_threads_(std::max(max_threads, 1U)), per_user_(std::max(per_user, 1U)) {
  threads_.reserve(max_threads_);
}

DeferredRequests::~DeferredRequests() {
  stop();
}

bool DeferredRequests::submit(Job& job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    const auto waiting = std::count_if(waiting_.begin(), waiting_.end(),
                                       [&](const Job& j) { return j.user == job.user; });
    if (static_cast<std::size_t>(waiting) >= kMaxWaitingPerUser) return false;
    waiting_.push_back(std::move(job));
    // Every thread busy: one more, while there may be. (If none can be
    // started, the job waits for a thread that finishes.)
    if (idle_ == 0 && threads_.size() < max_threads_) {
      try {
        threads_.emplace_back([this] { serve(); });
      } catch (const std::system_error&) {
      }
    }
  }
  wake_.notify_one();
  return true;
}

std::deque<DeferredRequests::Job>::iterator DeferredRequests::next_runnable() {
  // Called with mutex_ held; copiers_.stuck() takes only the copiers' lock.
  std::map<uid_t, bool> free_slot;
  return std::find_if(waiting_.begin(), waiting_.end(), [&](const Job& job) {
    const auto [it, fresh] = free_slot.try_emplace(job.user, false);
    if (fresh) {
      const auto running = running_.find(job.user);
      const unsigned busy = running == running_.end() ? 0 : running->second;
      it->second = busy + copiers_.stuck(job.user) < per_user_;
    }
    return it->second;
  });
}

void DeferredRequests::serve() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (stopping_) return;
    const auto next = next_runnable();
    if (next == waiting_.end()) {
      ++idle_;
      if (waiting_.empty())
        wake_.wait(lock);
      else
        wake_.wait_for(lock, kRecheck);
      --idle_;
      continue;
    }
    Job job = std::move(*next);
    waiting_.erase(next);
    ++running_[job.user];
    lock.unlock();
    job.run();
    lock.lock();
    if (--running_[job.user] == 0) running_.erase(job.user);
    wake_.notify_all();  // a slot is free: a waiting job of this user may run
  }
}

void DeferredRequests::stop() {
  std::deque<Job> cancelled;
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
    cancelled.swap(waiting_);
  }
  copiers_.stop();
  wake_.notify_all();
  for (Job& job : cancelled) job.cancel();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

}  // namespace cryptoaccel::devcrypto
