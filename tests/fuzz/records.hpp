// A differential sequence as data: fixed 16-byte records (an operation
// selector, seven argument bytes, a 64-bit seed for the operation's keys,
// IVs and payload). Fixed records let the minimiser delete one operation
// without shifting the arguments of the others.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace cryptoaccel::fuzz {

using Bytes = std::vector<unsigned char>;

struct Record {
  static constexpr std::size_t kSize = 16;
  std::uint8_t op = 0;
  std::array<std::uint8_t, 7> arg{};
  std::uint64_t data_seed = 0;

  // One of `choices`, chosen by argument byte `i`.
  template <typename T, std::size_t N>
  T pick(std::size_t i, const T (&choices)[N]) const {
    return choices[arg[i] % N];
  }
  bool flag(std::size_t i, unsigned bit = 0) const { return ((arg[i] >> bit) & 1U) != 0; }
};

// Records from a byte string; a short tail is padded with zeros.
std::vector<Record> parse_records(std::span<const std::uint8_t> bytes);
Bytes serialise_records(std::span<const Record> records);

// `n` bytes determined by `seed` (and `stream`, for a second buffer of the
// same operation): the same on both sides, independent of other records.
Bytes derived_bytes(std::uint64_t seed, std::size_t n, std::uint64_t stream = 0);

// The deterministic generator of the seeded runs (splitmix64).
class SplitMix {
 public:
  explicit SplitMix(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

}  // namespace cryptoaccel::fuzz
