// The SP 800-90B §4.4 continuous health tests, one sample at a time.
// Cutoffs come from health_parameters() (random.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace cryptoaccel::rng {

// Repetition Count Test (§4.4.1): fails when `cutoff` equal samples follow
// one another; cutoff - 1 pass.
class RepetitionCountTest {
 public:
  explicit RepetitionCountTest(unsigned cutoff) noexcept : cutoff_(cutoff) {}

  // The index in `samples` of the sample that completed `cutoff` equal
  // samples in a row, or samples.size() when none did.
  std::size_t feed(std::span<const std::uint8_t> samples) noexcept;

  std::uint8_t value() const noexcept { return value_; }
  unsigned cutoff() const noexcept { return cutoff_; }

 private:
  unsigned cutoff_;
  unsigned count_ = 0;  // 0 before the first sample
  std::uint8_t value_ = 0;
};

// Adaptive Proportion Test (§4.4.2): in each window of `window` samples,
// fails when the window's first sample occurs `cutoff` times (itself
// included); cutoff - 1 pass. Windows do not overlap.
class AdaptiveProportionTest {
 public:
  AdaptiveProportionTest(unsigned window, unsigned cutoff) noexcept
      : window_(window), cutoff_(cutoff) {}

  // As RepetitionCountTest::feed.
  std::size_t feed(std::span<const std::uint8_t> samples) noexcept;

  std::uint8_t value() const noexcept { return value_; }
  unsigned window() const noexcept { return window_; }
  unsigned cutoff() const noexcept { return cutoff_; }

 private:
  unsigned window_, cutoff_;
  unsigned seen_ = 0;  // samples of the current window so far
  unsigned count_ = 0;
  std::uint8_t value_ = 0;
};

// CRITBINOM(n, p, 1 - alpha): the smallest k with P(X > k) <= alpha for X
// binomial(n, p). Exposed for tests.
unsigned critical_binomial(unsigned n, double p, double alpha);

}  // namespace cryptoaccel::rng
