// The random source behind the provider's seed source CRYPTOACCEL-SEED
// (docs/rng.md): one per provider instance, shared by every seed context
// OpenSSL creates, with the counters that show it was used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "cryptoaccel/random.hpp"

namespace cryptoaccel::provider {

struct SeedCounters {
  std::uint64_t calls = 0;     // requests served whole
  std::uint64_t bytes = 0;     // bytes handed to OpenSSL
  std::uint64_t failures = 0;  // requests that ended in an error
};

class SeedSource {
 public:
  // `name` is what open_random_source() takes ("best": best_hardware_source()).
  // Nothing is opened here: a process that never seeds from us (most never
  // do) should not pay for, or fail on, a device it does not use.
  explicit SeedSource(std::string name);
  ~SeedSource();
  SeedSource(const SeedSource&) = delete;
  SeedSource& operator=(const SeedSource&) = delete;

  // How many bytes carry `entropy_bits` at the health tests' claimed
  // min-entropy per byte, at least `min_length`. Opens the source on first
  // use. Throws the source's error, or InvalidArgument when the length
  // exceeds `max_length`.
  std::size_t length_for(int entropy_bits, std::size_t min_length, std::size_t max_length);

  // Fills `out` entirely from the source, through its health tests. Throws
  // (and counts a failure) when the source cannot be opened, fails a health
  // test, or ends: `out` is then wiped, so no partial data is ever used.
  void fill(std::span<std::uint8_t> out);

  // Counts a request that failed before reaching the source (no memory).
  void count_failure() noexcept;

  SeedCounters counters() const;
  // Whether the source failed a health test and is out of service for good.
  bool out_of_service() const;
  // "SOURCE calls=N bytes=N failures=N tested=N (description)": the line of
  // the `seed` parameter and of the CRYPTOACCEL_STATS output.
  std::string text() const;

 private:
  // Requires mutex_ held.
  RandomSource& open_locked();

  const std::string name_;
  // The source is not thread-safe (random.hpp): every use holds this, so
  // seed contexts of several DRBGs (or several threads) share it safely.
  mutable std::mutex mutex_;
  std::unique_ptr<RandomSource> source_;
  std::string open_error_;  // why the last open failed
  SeedCounters counters_;
};

}  // namespace cryptoaccel::provider
