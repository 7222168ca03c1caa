// What the benchmarks of bench/ share: openssl speed's key, IV and
// buffers, and how a benchmark reports its size or a failure.
#pragma once

#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cryptoaccel/cryptoaccel.hpp"

namespace bench {

using cryptoaccel::Bytes;
using cryptoaccel::MutableBytes;

inline constexpr std::size_t kSmall = 16;
inline constexpr std::size_t kLarge = 8192;

// The key and IV openssl speed uses (key16 and a zero IV); the values do not
// change the timings.
inline constexpr std::array<std::uint8_t, 16> kKey16 = {
    0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x12};
inline constexpr std::array<std::uint8_t, 16> kIv16 = {};
inline constexpr std::array<std::uint8_t, 12> kNonce12 = {};
// openssl speed -hmac keys HMAC with this string.
inline constexpr std::string_view kHmacKey = "This is a key...";

inline Bytes hmac_key() {
  return {reinterpret_cast<const std::uint8_t*>(kHmacKey.data()), kHmacKey.size()};
}

// A 64-byte aligned buffer, as openssl speed's (misalignment 0).
class Buffer {
 public:
  explicit Buffer(std::size_t size) : storage_(size + 64, 0xa5) {
    const auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
    offset_ = (64 - address % 64) % 64;
    size_ = size;
  }
  std::uint8_t* data() { return storage_.data() + offset_; }
  std::size_t size() const { return size_; }
  MutableBytes span() { return {data(), size_}; }

 private:
  std::vector<std::uint8_t> storage_;
  std::size_t offset_ = 0;
  std::size_t size_ = 0;
};

inline void finish(benchmark::State& state, std::string_view algorithm, std::string_view operation,
                   std::string_view driver, std::size_t size) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(size));
  state.SetLabel(std::string(algorithm) + " " + std::string(operation) + ", " +
                 std::string(driver) + ", " + std::to_string(size) + " B");
}

// Runs `body` and turns a cryptoaccel or OpenSSL failure into a skipped
// benchmark instead of an abort.
template <typename Body>
void guarded(benchmark::State& state, Body&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace bench
