// Where `cryptoaccel rngtest` reads from: standard input (as rngtest), or
// one of our random sources through its health tests.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "cryptoaccel/random.hpp"

namespace cryptoaccel::tools::rngtest {

class Input {
 public:
  enum class End { none, drained, error, interrupted };

  // `source` null: standard input. `quiet`: pipe mode, where rngtest does
  // not say "entropy source drained". `stop` is set by the signal handler.
  Input(std::unique_ptr<RandomSource> source, bool quiet, const std::atomic<int>& stop)
      : source_(std::move(source)), quiet_(quiet), stop_(stop) {}

  // Reads until `out` is full or the input ends; returns the bytes read.
  // When it ends, end() says how.
  std::size_t fill(std::span<std::uint8_t> out);

  // Prints what rngtest prints where its reading stops ("entropy source
  // drained", "error reading input: ..."). The caller calls it once it has
  // used the data read before the end: rngtest reads a block at a time, so
  // it says so after the statistics of the blocks before.
  void report_end();

  End end() const noexcept { return end_; }

 private:
  std::size_t read_some(std::span<std::uint8_t> out);

  std::unique_ptr<RandomSource> source_;
  bool quiet_;
  const std::atomic<int>& stop_;
  End end_ = End::none;
  std::string error_;
  bool reported_ = false;
};

}  // namespace cryptoaccel::tools::rngtest
