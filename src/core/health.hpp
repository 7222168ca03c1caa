// Driver health: a driver that keeps failing is quarantined, that is taken
// out of automatic dispatch for a while, then given requests again. The
// first quarantine lasts `quarantine_for`; each one that follows without a
// success in between lasts twice as long, up to 64 times. One success ends
// the count. Shared by every session (atomics; relaxed is enough, as the
// figures only steer the choice of a driver).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace cryptoaccel::detail {

class DriverHealth {
 public:
  using Clock = std::chrono::steady_clock;

  void configure(std::uint32_t failures_to_quarantine, Clock::duration quarantine_for) noexcept {
    failures_to_quarantine_ = failures_to_quarantine;
    quarantine_for_ = quarantine_for;
  }

  void failed() noexcept {
    if (failures_to_quarantine_ == 0) return;  // quarantine disabled
    if (consecutive_failures_.fetch_add(1, std::memory_order_relaxed) + 1 < failures_to_quarantine_)
      return;
    consecutive_failures_.store(0, std::memory_order_relaxed);
    const std::uint32_t n = quarantines_.fetch_add(1, std::memory_order_relaxed);
    const auto length = quarantine_for_ * (1 << (n < 6 ? n : 6));
    until_.store((Clock::now() + length).time_since_epoch().count(), std::memory_order_relaxed);
    ++total_quarantines_;
  }

  // Quarantines at once (a driver that hung needs no second chance yet).
  void quarantine() noexcept {
    for (std::uint32_t i = 0; i < failures_to_quarantine_; ++i) failed();
  }

  void succeeded() noexcept {
    if (consecutive_failures_.load(std::memory_order_relaxed) != 0)
      consecutive_failures_.store(0, std::memory_order_relaxed);
    if (quarantines_.load(std::memory_order_relaxed) != 0)
      quarantines_.store(0, std::memory_order_relaxed);
  }

  // Reads the clock only for a driver that has been in quarantine: a batch
  // of small requests asks once per run, and clock_gettime cost 6% of one.
  bool quarantined() const noexcept {
    const auto until = until_.load(std::memory_order_relaxed);
    return until != 0 && Clock::now().time_since_epoch().count() < until;
  }

  // How many times it was quarantined since the framework started.
  std::uint64_t total_quarantines() const noexcept {
    return total_quarantines_.load(std::memory_order_relaxed);
  }

 private:
  std::uint32_t failures_to_quarantine_ = 3;
  Clock::duration quarantine_for_ = std::chrono::seconds(1);
  std::atomic<std::uint32_t> consecutive_failures_{0};
  std::atomic<std::uint32_t> quarantines_{0};  // in a row, without a success
  std::atomic<Clock::rep> until_{0};
  std::atomic<std::uint64_t> total_quarantines_{0};
};

}  // namespace cryptoaccel::detail
