// The free queue pairs of one device. Taking one and giving it back is a
// pair of atomic exchanges in the common case, with no lock: a batch of 32
// small requests on a software device lasts about two microseconds, and a
// mutex and a condition variable per batch cost a few per cent of it. A
// thread that finds none free waits under the lock for one to come back.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace cryptoaccel::dpdk_backend {

struct QueuePair;

class QueuePairPool {
 public:
  static constexpr std::size_t kMaxPairs = 8;

  // Adds a pair while the device opens (before any thread takes one).
  void add(QueuePair* pair) noexcept;
  // A free pair, waiting for one when all are taken; null once every pair
  // has been retired.
  QueuePair* take() noexcept;
  // Gives `pair` back, or (`retired`) gives it up for good.
  void give_back(QueuePair* pair, bool retired) noexcept;

 private:
  QueuePair* try_take() noexcept;
  bool all_retired() const noexcept {
    return retired_.load(std::memory_order_seq_cst) == count_;
  }

  std::atomic<QueuePair*> free_[kMaxPairs] = {};
  std::size_t count_ = 0;
  std::atomic<std::size_t> retired_{0};
  std::atomic<unsigned> waiters_{0};
  std::mutex mutex_;
  std::condition_variable returned_;
};

}  // namespace cryptoaccel::dpdk_backend
