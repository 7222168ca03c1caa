// FIPS 140-2 block tests, word-parallel, with rngtest's counting.
//
// The reference walks the 20000 bits one at a time with a branch per bit.
// Here the monobit and poker counts come from one byte histogram, and the
// runs from 64-bit words: for each bit value, the number of runs of length
// at least k (k = 1..6) is the popcount of "run starts followed by k equal
// bits", and a long run is 25 consecutive "bit equals the next bit" marks.
// The reference's bookkeeping is then applied to those counts (see
// docs/rng.md): a run is filed under the value of the bit that ends it, so
// runs of ones land in runs[0..5]; the block's last run is filed under its
// own value; and a block whose first bit differs from the previous block's
// last bit records a run of length 0 at index 6*bit-1, which is runs[5] for
// a 1 and, one int before runs[0] in the reference's struct, poker[15] for a 0.
#include <bit>
#include <cstring>

#include "cryptoaccel/fips140_2.hpp"

namespace cryptoaccel::fips140_2 {
namespace {

constexpr std::size_t kBits = kBlockBytes * 8;
constexpr std::size_t kWords = (kBits + 63) / 64;  // 313; the last holds 32 bits
static_assert(kBits % 64 == 32, "the last word of a block is half full");

// Words 1..kWords hold the block (most significant bit first), words 0,
// kWords+1 and kWords+2 are zero, so no run reaches past the block's edges.
using Words = std::array<std::uint64_t, kWords + 3>;

constexpr std::array<std::uint8_t, 256> kBitsSet = [] {
  std::array<std::uint8_t, 256> t{};
  for (unsigned b = 0; b < 256; ++b) t[b] = static_cast<std::uint8_t>(std::popcount(b));
  return t;
}();

std::uint64_t load_big_endian(const std::uint8_t* p, std::size_t n) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t{p[i]} << (56 - 8 * i);
  return v;
}

void load_words(const std::uint8_t* block, Words& x) noexcept {
  x[0] = 0;
  for (std::size_t w = 0; w + 1 < kWords; ++w) {
    std::uint64_t v;
    std::memcpy(&v, block + 8 * w, 8);
    if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
    x[w + 1] = v;
  }
  x[kWords] = load_big_endian(block + 8 * (kWords - 1), 4);
  x[kWords + 1] = x[kWords + 2] = 0;
}

// The counting kernels are built twice, with and without the POPCNT
// instruction; the loader picks the one this CPU runs.
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define CRYPTOACCEL_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define CRYPTOACCEL_POPCNT_CLONES
#endif

// at_least[k]: runs of set bits of length >= k within the block, k = 1..6.
CRYPTOACCEL_POPCNT_CLONES
void count_runs(const Words& v, std::array<int, 8>& at_least) noexcept {
  std::array<std::uint64_t, 7> sums{};
  for (std::size_t w = 1; w <= kWords; ++w) {
    const std::uint64_t cur = v[w], next = v[w + 1];
    const std::uint64_t start = cur & ~((cur >> 1) | (v[w - 1] << 63));
    sums[1] += static_cast<unsigned>(std::popcount(start));
    std::uint64_t followed = start;  // starts followed by k set bits
    for (unsigned k = 1; k < 6; ++k) {
      followed &= (cur << k) | (next >> (64 - k));
      sums[k + 1] += static_cast<unsigned>(std::popcount(followed));
    }
  }
  for (unsigned k = 1; k <= 6; ++k) at_least[k] = static_cast<int>(sums[k]);
  at_least[7] = 0;
}

// Two words as one 128-bit number (hi:lo), with what the doubling below
// needs: unsigned __int128 exists on 64-bit processors only, and compilers
// make the same instructions of this where it does.
struct Pair {
  std::uint64_t hi, lo;
  Pair operator&(Pair o) const noexcept { return {hi & o.hi, lo & o.lo}; }
  // 0 < n < 64
  Pair operator<<(unsigned n) const noexcept { return {(hi << n) | (lo >> (64 - n)), lo << n}; }
};

// Whether 26 or more equal bits follow one another within the block.
bool has_long_run(const Words& x) noexcept {
  // equal(w): bit i of word w equals bit i+1, for i+1 inside the block.
  const auto equal = [&x](std::size_t w) -> std::uint64_t {
    if (w > kWords) return 0;
    const std::uint64_t mask = w == kWords ? ~std::uint64_t{0} << 33 : ~std::uint64_t{0};
    return ~(x[w] ^ ((x[w] << 1) | (x[w + 1] >> 63))) & mask;
  };
  std::uint64_t found = 0;
  std::uint64_t current = equal(1);
  for (std::size_t w = 1; w <= kWords; ++w) {
    const std::uint64_t next = equal(w + 1);
    // Doubling over two words: a position of the first word needs marks up
    // to 24 places on, which may lie in the second.
    const Pair y{current, next};
    const Pair a2 = y & (y << 1);
    const Pair a4 = a2 & (a2 << 2);
    const Pair a8 = a4 & (a4 << 4);
    const Pair a16 = a8 & (a8 << 8);
    const Pair a25 = a16 & (a8 << 16) & (y << 24);
    found |= a25.hi;
    current = next;
  }
  return found != 0;
}

CRYPTOACCEL_POPCNT_CLONES
void count_bytes(const std::uint8_t* block, BlockCounts& c) noexcept {
  // Four histograms so that repeated bytes do not serialise on one counter.
  std::array<std::array<std::uint16_t, 256>, 4> h{};
  for (std::size_t i = 0; i < kBlockBytes; i += 4) {
    ++h[0][block[i]];
    ++h[1][block[i + 1]];
    ++h[2][block[i + 2]];
    ++h[3][block[i + 3]];
  }
  c.ones = 0;
  c.poker.fill(0);
  for (unsigned b = 0; b < 256; ++b) {
    const int n = h[0][b] + h[1][b] + h[2][b] + h[3][b];
    c.ones += n * kBitsSet[b];
    c.poker[b >> 4] += n;
    c.poker[b & 15] += n;
  }
}

}  // namespace

unsigned evaluate(const BlockCounts& c) noexcept {
  unsigned result = 0;
  if (c.ones >= 10275 || c.ones <= 9725) result |= kMonobit;
  if (c.poker_sum > 1576928 || c.poker_sum < 1563176) result |= kPoker;
  static constexpr int kLow[6] = {2315, 1114, 527, 240, 103, 103};
  static constexpr int kHigh[6] = {2685, 1386, 723, 384, 209, 209};
  for (std::size_t i = 0; i < 12; ++i)
    if (c.runs[i] < kLow[i % 6] || c.runs[i] > kHigh[i % 6]) result |= kRuns;
  if (c.long_run) result |= kLongRun;
  if (c.continuous_run) result |= kContinuousRun;
  return result;
}

unsigned BlockTester::test(std::span<const std::uint8_t, kBlockBytes> block) noexcept {
  BlockCounts& c = counts_;
  const std::uint8_t* p = block.data();

  // Continuous run: each 32-bit word (first byte least significant) against
  // the one before it; the first is compared with the previous block's last.
  bool repeated = false;
  std::uint32_t previous = last_word_;
  for (std::size_t i = 0; i < kBlockBytes; i += 4) {
    const std::uint32_t word =
        p[i] | (p[i + 1] << 8) | (p[i + 2] << 16) | (static_cast<std::uint32_t>(p[i + 3]) << 24);
    repeated |= word == previous;
    previous = word;
  }
  last_word_ = previous;
  c.continuous_run = repeated;

  count_bytes(p, c);

  Words ones, zeros;
  load_words(p, ones);
  for (std::size_t w = 0; w < ones.size(); ++w) zeros[w] = ~ones[w];
  zeros[0] = zeros[kWords + 1] = zeros[kWords + 2] = 0;
  zeros[kWords] &= ~std::uint64_t{0} << 32;

  std::array<std::array<int, 8>, 2> at_least;  // [bit value][k]
  count_runs(zeros, at_least[0]);
  count_runs(ones, at_least[1]);
  for (unsigned value = 0; value < 2; ++value)
    for (unsigned k = 1; k <= 6; ++k) {
      const int exact = k < 6 ? at_least[value][k] - at_least[value][k + 1] : at_least[value][6];
      c.runs[6 * (1 - value) + k - 1] = exact;
    }

  // The last run: filed under its own value, not under the other one.
  const auto tail = static_cast<std::uint32_t>(ones[kWords] >> 32);
  const unsigned last_bit = tail & 1;
  const std::uint32_t differing = last_bit ? ~tail : tail;
  const int last_length = differing == 0 ? 32 : std::countr_zero(differing);
  const int bucket = (last_length < 6 ? last_length : 6) - 1;
  --c.runs[6 * (1 - last_bit) + bucket];
  ++c.runs[6 * last_bit + bucket];

  // The run of length 0 that a change of bit across the boundary records.
  const unsigned first_bit = static_cast<unsigned>(ones[1] >> 63);
  if (first_bit != last_bit_) {
    if (first_bit)
      ++c.runs[5];
    else
      ++c.poker[15];
  }
  last_bit_ = last_bit;

  c.poker_sum = 0;
  for (int n : c.poker) c.poker_sum += static_cast<long long>(n) * n;
  c.long_run = has_long_run(ones);
  return evaluate(c);
}

}  // namespace cryptoaccel::fips140_2
