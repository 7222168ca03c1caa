// The word-parallel FIPS 140-2 tests against a bit-at-a-time model of
// rngtest's counting (written from the behaviour described in docs/rng.md),
// on random, biased and crafted blocks, across block boundaries.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cryptoaccel/fips140_2.hpp"

namespace {

using cryptoaccel::fips140_2::BlockCounts;
using cryptoaccel::fips140_2::BlockTester;
using cryptoaccel::fips140_2::kBlockBytes;
using Block = std::vector<std::uint8_t>;

// Bit by bit, the way the reference walks a block. The counters live in
// one array so that the reference's index -1 (one before runs[0]) is
// poker[15], as in its struct.
class Model {
 public:
  explicit Model(std::uint32_t seed_word) : last_word_(seed_word) {}

  BlockCounts test(const Block& block) {
    std::array<int, 28> counters{};  // poker[16] then runs[12]
    int* poker = counters.data();
    int* runs = counters.data() + 16;
    int ones = 0, length = -1, bit = 0;
    bool long_run = false, repeated = false;
    for (std::size_t i = 0; i < kBlockBytes; ++i) {
      if (i % 4 == 0) {
        const std::uint32_t word = block[i] | (block[i + 1] << 8) | (block[i + 2] << 16) |
                                   (static_cast<std::uint32_t>(block[i + 3]) << 24);
        repeated |= word == last_word_;
        last_word_ = word;
      }
      ++poker[block[i] >> 4];
      ++poker[block[i] & 15];
      for (int j = 7; j >= 0; --j) {
        bit = (block[i] >> j) & 1;
        ones += bit;
        if (bit != last_bit_) {
          runs[(length < 5 ? length : 5) + 6 * bit]++;
          long_run |= length >= 25;
          length = 0;
          last_bit_ = bit;
        } else {
          ++length;
        }
      }
    }
    runs[(length < 5 ? length : 5) + 6 * bit]++;
    long_run |= length >= 25;
    BlockCounts c;
    c.ones = ones;
    std::copy(poker, poker + 16, c.poker.begin());
    std::copy(runs, runs + 12, c.runs.begin());
    for (int n : c.poker) c.poker_sum += static_cast<long long>(n) * n;
    c.long_run = long_run;
    c.continuous_run = repeated;
    return c;
  }

 private:
  std::uint32_t last_word_;
  int last_bit_ = 0;
};

void expect_same(const BlockCounts& want, const BlockCounts& got, std::size_t block) {
  EXPECT_EQ(want.ones, got.ones) << "block " << block;
  EXPECT_EQ(want.poker, got.poker) << "block " << block;
  EXPECT_EQ(want.runs, got.runs) << "block " << block;
  EXPECT_EQ(want.poker_sum, got.poker_sum) << "block " << block;
  EXPECT_EQ(want.long_run, got.long_run) << "block " << block;
  EXPECT_EQ(want.continuous_run, got.continuous_run) << "block " << block;
}

// Runs every block through both, in order, and compares every count.
void compare(const std::vector<Block>& blocks, std::uint32_t seed_word = 0x12345678) {
  Model model(seed_word);
  BlockTester tester(seed_word);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const BlockCounts want = model.test(blocks[i]);
    const unsigned result = tester.test(std::span<const std::uint8_t, kBlockBytes>(blocks[i]));
    expect_same(want, tester.counts(), i);
    EXPECT_EQ(result, cryptoaccel::fips140_2::evaluate(want)) << "block " << i;
  }
}

// Bits that are 1 with probability `p`.
Block biased_block(std::mt19937_64& rng, double p) {
  std::bernoulli_distribution one(p);
  Block b(kBlockBytes);
  for (auto& byte : b)
    for (int j = 0; j < 8; ++j) byte = static_cast<std::uint8_t>((byte << 1) | one(rng));
  return b;
}

// Runs of equal bits with geometric lengths: long runs become common.
Block sticky_block(std::mt19937_64& rng, double stay) {
  std::bernoulli_distribution keep(stay);
  Block b(kBlockBytes);
  int bit = static_cast<int>(rng() & 1);
  for (auto& byte : b)
    for (int j = 0; j < 8; ++j) {
      if (!keep(rng)) bit ^= 1;
      byte = static_cast<std::uint8_t>((byte << 1) | bit);
    }
  return b;
}

TEST(Fips140_2, RandomBlocksCountAsTheReference) {
  std::mt19937_64 rng(1);
  std::vector<Block> blocks;
  for (int i = 0; i < 200; ++i) blocks.push_back(biased_block(rng, 0.5));
  compare(blocks);
}

TEST(Fips140_2, BiasedAndStickyBlocksCountAsTheReference) {
  std::mt19937_64 rng(2);
  std::vector<Block> blocks;
  for (double p : {0.0, 0.01, 0.3, 0.49, 0.51, 0.7, 0.99, 1.0})
    for (int i = 0; i < 6; ++i) blocks.push_back(biased_block(rng, p));
  for (double stay : {0.6, 0.8, 0.9, 0.95})
    for (int i = 0; i < 6; ++i) blocks.push_back(sticky_block(rng, stay));
  std::shuffle(blocks.begin(), blocks.end(), rng);
  compare(blocks);
}

// Every combination of a block's first and last bit and the previous
// block's last bit; long runs that end exactly at, or cross, the boundary.
TEST(Fips140_2, BlockBoundaries) {
  std::mt19937_64 rng(3);
  std::vector<Block> blocks;
  for (int first = 0; first < 2; ++first)
    for (int last = 0; last < 2; ++last)
      for (int tail : {1, 2, 5, 6, 7, 25, 26, 27, 40}) {
        Block b = biased_block(rng, 0.5);
        b[0] = static_cast<std::uint8_t>(first ? b[0] | 0x80 : b[0] & 0x7f);
        // The last `tail` bits equal `last`, the bit before them differs.
        for (int i = 0; i <= tail; ++i) {
          const std::size_t bit = kBlockBytes * 8 - 1 - static_cast<std::size_t>(i);
          const std::uint8_t mask = static_cast<std::uint8_t>(0x80 >> (bit % 8));
          const bool set = (i < tail) == static_cast<bool>(last);
          b[bit / 8] = static_cast<std::uint8_t>(set ? b[bit / 8] | mask : b[bit / 8] & ~mask);
        }
        blocks.push_back(b);
      }
  std::shuffle(blocks.begin(), blocks.end(), rng);
  compare(blocks);
}

TEST(Fips140_2, ReferenceQuirksAreKept) {
  // A first block starting with a 1 (the previous "last bit" is 0): a run
  // of length 0 lands in runs[5].
  Block ones(kBlockBytes, 0xff);
  BlockTester tester(0);
  tester.test(std::span<const std::uint8_t, kBlockBytes>(ones));
  EXPECT_EQ(tester.counts().runs[5], 1);
  EXPECT_EQ(tester.counts().runs[11], 1);  // the whole block: one run, under its own value
  // Then a block starting with a 0: the run of length 0 lands one int
  // before runs[0], in poker[15].
  Block zeros(kBlockBytes, 0x00);
  tester.test(std::span<const std::uint8_t, kBlockBytes>(zeros));
  EXPECT_EQ(tester.counts().poker[15], 1);
  EXPECT_EQ(tester.counts().poker[0], 5000);
  EXPECT_EQ(tester.counts().runs[5], 1);  // the final run of zeros
  EXPECT_TRUE(tester.counts().long_run);
  EXPECT_TRUE(tester.counts().continuous_run);
}

TEST(Fips140_2, ContinuousTestCarriesTheLastWordAcrossBlocks) {
  std::mt19937_64 rng(4);
  Block a = biased_block(rng, 0.5), b = biased_block(rng, 0.5);
  std::copy(a.end() - 4, a.end(), b.begin());  // b's first word repeats a's last
  BlockTester tester(0);
  EXPECT_EQ(tester.test(std::span<const std::uint8_t, kBlockBytes>(a)) &
                cryptoaccel::fips140_2::kContinuousRun,
            0u);
  EXPECT_NE(tester.test(std::span<const std::uint8_t, kBlockBytes>(b)) &
                cryptoaccel::fips140_2::kContinuousRun,
            0u);
  // The seed word counts as the word before the first block.
  std::uint32_t seed = a[0] | (a[1] << 8) | (a[2] << 16) | (static_cast<std::uint32_t>(a[3]) << 24);
  BlockTester seeded(seed);
  EXPECT_NE(seeded.test(std::span<const std::uint8_t, kBlockBytes>(a)) &
                cryptoaccel::fips140_2::kContinuousRun,
            0u);
}

}  // namespace
