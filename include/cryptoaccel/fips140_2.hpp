// The FIPS 140-2 (errata 2001-10-10) statistical tests of random data on
// 20000-bit blocks, counted exactly as rng-tools' `rngtest` counts them,
// quirks at block boundaries included (docs/rng.md), so that
// `cryptoaccel rngtest` gives identical counts on identical input.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace cryptoaccel::fips140_2 {

// One block: 20000 bits, taken most significant bit first within each byte.
inline constexpr std::size_t kBlockBytes = 2500;

// A block's result is the OR of these flags; 0 when every test passed.
enum Failure : unsigned {
  kMonobit = 0x01,
  kPoker = 0x02,
  kRuns = 0x04,
  kLongRun = 0x08,
  kContinuousRun = 0x10,
};

inline constexpr std::size_t kTestCount = 5;

// The names rngtest prints, in the order of the flags above.
inline constexpr std::array<std::string_view, kTestCount> kTestNames = {
    "FIPS 140-2(2001-10-10) Monobit", "FIPS 140-2(2001-10-10) Poker", "FIPS 140-2(2001-10-10) Runs",
    "FIPS 140-2(2001-10-10) Long run", "FIPS 140-2(2001-10-10) Continuous run"};

// What the tests counted in the last block, laid out as the reference lays
// them out: runs[0..5] and runs[6..11] are the two run buckets (lengths 1 to
// 5 and 6 or more), poker[] the 16 nibble counts.
struct BlockCounts {
  int ones = 0;
  std::array<int, 16> poker{};
  std::array<int, 12> runs{};
  long long poker_sum = 0;  // sum of poker[i] squared
  bool long_run = false;
  bool continuous_run = false;
};

// Tests consecutive blocks of one stream; state carries from block to block
// (the last bit for the runs, the last 32-bit word for the continuous test).
class BlockTester {
 public:
  // `seed_word` is the 32-bit word (first byte least significant) that the
  // continuous test compares the first word of the first block with.
  explicit BlockTester(std::uint32_t seed_word) noexcept : last_word_(seed_word) {}

  // Tests the next block; returns the OR of the Failure flags (0: passed).
  unsigned test(std::span<const std::uint8_t, kBlockBytes> block) noexcept;

  // The counts behind the last result.
  const BlockCounts& counts() const noexcept { return counts_; }

 private:
  std::uint32_t last_word_;
  unsigned last_bit_ = 0;
  BlockCounts counts_;
};

// The result for `counts`, by the FIPS 140-2 bounds (exposed for tests).
unsigned evaluate(const BlockCounts& counts) noexcept;

}  // namespace cryptoaccel::fips140_2
