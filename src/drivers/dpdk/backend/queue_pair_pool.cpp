#include "queue_pair_pool.hpp"

#include <pthread.h>

namespace cryptoaccel::dpdk_backend {
namespace {

// A thread cancelled while it waits here would unwind through the
// library's noexcept batch call and end the process: its cancellation
// waits until it has a pair, as for a library call that is no
// cancellation point.
class CancellationDeferred {
 public:
  CancellationDeferred() noexcept { pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &before_); }
  ~CancellationDeferred() { pthread_setcancelstate(before_, nullptr); }
  CancellationDeferred(const CancellationDeferred&) = delete;
  CancellationDeferred& operator=(const CancellationDeferred&) = delete;

 private:
  int before_ = PTHREAD_CANCEL_ENABLE;
};

}  // namespace

void QueuePairPool::add(QueuePair* pair) noexcept {
  if (count_ < kMaxPairs) free_[count_++].store(pair, std::memory_order_release);
}

QueuePair* QueuePairPool::try_take() noexcept {
  for (std::size_t i = 0; i < count_; ++i)
    if (free_[i].load(std::memory_order_relaxed) != nullptr)
      if (QueuePair* pair = free_[i].exchange(nullptr, std::memory_order_seq_cst))
        return pair;
  return nullptr;
}

QueuePair* QueuePairPool::take() noexcept {
  if (QueuePair* pair = try_take()) return pair;
  const CancellationDeferred deferred;
  std::unique_lock lock(mutex_);
  // Counted before looking again: a pair given back after this look is
  // given back by a thread that sees the count and wakes this one (both
  // sequentially consistent, so one of the two sees the other).
  waiters_.fetch_add(1, std::memory_order_seq_cst);
  // try_take()'s loads are relaxed: the fence orders them after the count,
  // so that on a weakly ordered CPU too a pair given back after them is
  // given back by a thread that sees the count.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  QueuePair* pair = nullptr;
  while ((pair = try_take()) == nullptr && !all_retired()) returned_.wait(lock);
  waiters_.fetch_sub(1, std::memory_order_relaxed);
  return pair;
}

void QueuePairPool::give_back(QueuePair* pair, bool retired) noexcept {
  if (retired) {
    retired_.fetch_add(1, std::memory_order_seq_cst);
  } else {
    for (std::size_t i = 0;; i = (i + 1) % count_) {
      QueuePair* empty = nullptr;
      if (free_[i].compare_exchange_strong(empty, pair, std::memory_order_seq_cst)) break;
    }
  }
  if (waiters_.load(std::memory_order_seq_cst) == 0) return;
  // Taking the lock orders this after a waiter's look or before its
  // wait; every waiter learns of the last pair retiring, as none would
  // be woken again after it.
  { const std::lock_guard lock(mutex_); }
  if (retired)
    returned_.notify_all();
  else
    returned_.notify_one();
}

}  // namespace cryptoaccel::dpdk_backend
