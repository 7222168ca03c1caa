// rngtest's statistics: counters, timings and the lines it prints on stderr
// ("rngtest: FIPS 140-2 successes: 999"), in its format.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "cryptoaccel/fips140_2.hpp"

namespace cryptoaccel::tools::rngtest {

// Min, max and sum of durations. rng-tools measures in microseconds; this
// measures in nanoseconds, so that a block tested in under a microsecond
// still gives a rate.
struct Timing {
  std::uint64_t min_ns = 0, max_ns = 0, sum_ns = 0, samples = 0;
  void add(std::uint64_t ns) noexcept;
  // `count` samples of `total_ns / count` each: a read or write that moved
  // several blocks at once.
  void add_spread(std::uint64_t total_ns, std::uint64_t count) noexcept;
};

struct Stats {
  std::uint64_t bytes_received = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t good_blocks = 0;
  std::uint64_t bad_blocks = 0;
  std::array<std::uint64_t, fips140_2::kTestCount> failures{};
  Timing input, fips, output;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

// "rngtest: NAME: VALUE"
std::string counter_line(std::string_view name, std::uint64_t value);

// "rngtest: NAME: (min=…; avg=…; max=…)Kibits/s": rates of `bits_per_sample`
// per timing sample, scaled by 1024 while all three are at least 1024.
std::string rate_line(std::string_view name, const Timing& timing, std::uint64_t bits_per_sample);

// Every line rngtest prints at a statistics dump, to stderr.
void print_stats(const Stats& stats, bool pipe);

}  // namespace cryptoaccel::tools::rngtest
