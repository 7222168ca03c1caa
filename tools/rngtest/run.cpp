#include "run.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <vector>

#include "cryptoaccel/fips140_2.hpp"
#include "cryptoaccel/random.hpp"
#include "cryptoaccel/version.hpp"
#include "input.hpp"
#include "stats.hpp"

namespace cryptoaccel::tools::rngtest {
namespace {

using Clock = std::chrono::steady_clock;
using fips140_2::kBlockBytes;

// Blocks per read: large enough that system calls cost nothing next to the
// tests, small enough to stay in the caches.
constexpr std::size_t kChunkBlocks = 64;

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "set from a signal handler");

extern "C" void on_signal(int signal) {
  g_signal.store(signal);
}

std::uint64_t nanoseconds_since(Clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
}

// Passing blocks for stdout in pipe mode, written a chunk at a time.
class Output {
 public:
  explicit Output(Stats& stats) : stats_(stats) { pending_.reserve(kChunkBlocks * kBlockBytes); }

  void add(std::span<const std::uint8_t> block) {
    pending_.insert(pending_.end(), block.begin(), block.end());
  }

  // Writes what is pending; false after a write error (reported) or a signal.
  bool flush(int& status) {
    const Clock::time_point start = Clock::now();
    const std::size_t blocks = pending_.size() / kBlockBytes;
    std::size_t done = 0;
    while (done < pending_.size()) {
      const ssize_t n = ::write(STDOUT_FILENO, pending_.data() + done, pending_.size() - done);
      if (n < 0) {
        if (g_signal.load() != 0) return false;
        if (errno == EINTR || errno == EAGAIN) continue;
        fmt::print(stderr, "rngtest: error writing to output: {}\n", std::strerror(errno));
        status = kExitIoError;
        return false;
      }
      if (n == 0) {
        fmt::print(stderr, "rngtest: write channel stuck\n");
        status = kExitIoError;
        return false;
      }
      done += static_cast<std::size_t>(n);
      stats_.bytes_sent += static_cast<std::size_t>(n);
    }
    stats_.output.add_spread(nanoseconds_since(start), blocks);
    pending_.clear();
    return true;
  }

 private:
  Stats& stats_;
  std::vector<std::uint8_t> pending_;
};

// rngtest's start-up: in pipe mode the first 32 bits are thrown away; the
// next 32 seed the continuous test. Too little input ends the program with
// status 1 and no statistics.
bool bootstrap(Input& input, bool pipe, Stats& stats, std::uint32_t& seed) {
  std::array<std::uint8_t, 4> word{};
  for (int i = pipe ? 0 : 1; i < 2; ++i) {
    const std::size_t got = input.fill(word);
    stats.bytes_received += got;
    if (got < word.size()) {
      input.report_end();
      return false;
    }
  }
  seed = word[0] | (word[1] << 8) | (word[2] << 16) | (static_cast<std::uint32_t>(word[3]) << 24);
  return true;
}

int test_blocks(const Options& o, Input& input, Stats& stats, std::uint32_t seed) {
  int status = kExitSuccess;
  fips140_2::BlockTester tester(seed);
  Output output(stats);
  std::vector<std::uint8_t> buffer(kChunkBlocks * kBlockBytes);
  std::uint64_t blocks_done = 0;
  int since_dump = 0;
  Clock::time_point last_dump = Clock::now();
  bool done = false;
  while (!done && g_signal.load() == 0) {
    std::size_t want = kChunkBlocks;
    if (o.blockcount > 0)  // never read past what rngtest would read
      want = std::min<std::uint64_t>(want, static_cast<std::uint64_t>(o.blockcount) - blocks_done);
    const Clock::time_point read_start = Clock::now();
    const std::size_t got = input.fill(std::span(buffer).first(want * kBlockBytes));
    const std::size_t blocks = got / kBlockBytes;
    stats.input.add_spread(nanoseconds_since(read_start), blocks);

    for (std::size_t b = 0; b < blocks && !done; ++b) {
      const auto block = std::span(buffer).subspan(b * kBlockBytes).first<kBlockBytes>();
      const Clock::time_point start = Clock::now();
      const unsigned result = tester.test(block);
      stats.fips.add(nanoseconds_since(start));
      stats.bytes_received += kBlockBytes;
      if (result != 0) {
        ++stats.bad_blocks;
        for (std::size_t t = 0; t < fips140_2::kTestCount; ++t)
          if (result & (1u << t)) ++stats.failures[t];
      } else {
        ++stats.good_blocks;
        if (o.pipe) output.add(block);
      }
      if (o.blockcount > 0 && ++blocks_done >= static_cast<std::uint64_t>(o.blockcount)) {
        done = true;
        break;
      }
      const bool by_blocks = o.blockstats > 0 && ++since_dump >= o.blockstats;
      const bool by_time =
          o.timedstats_us > 0 && nanoseconds_since(last_dump) / 1000 > o.timedstats_us;
      if (by_blocks || by_time) {
        if (o.pipe && !output.flush(status)) return status;
        print_stats(stats, o.pipe);
        last_dump = Clock::now();
        since_dump = 0;
      }
      if (g_signal.load() != 0) done = true;
    }
    if (o.pipe && !output.flush(status)) return status;
    if (input.end() != Input::End::none && !done) {
      input.report_end();
      stats.bytes_received += got % kBlockBytes;  // the incomplete last block
      if (input.end() == Input::End::error) status = kExitIoError;
      done = true;
    }
  }
  return status;
}

}  // namespace

int run(const Options& o) {
  if (!o.pipe)
    fmt::print(stderr, "rngtest (cryptoaccel {}), compatible with rng-tools' rngtest 5\n\n",
               CRYPTOACCEL_VERSION_STRING);
  struct sigaction action {};
  action.sa_handler = on_signal;  // no SA_RESTART: a blocked read returns
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGTERM, &action, nullptr) != 0 || sigaction(SIGINT, &action, nullptr) != 0) {
    fmt::print(stderr, "rngtest: unable to install signal handlers: {}\n", std::strerror(errno));
    return kExitOsError;
  }
  Stats stats;
  if (!o.pipe) fmt::print(stderr, "rngtest: starting FIPS tests...\n");

  std::unique_ptr<RandomSource> source;
  if (!o.source.empty()) {
    try {
      source = open_random_source(o.source);
    } catch (const NotFound& e) {
      fmt::print(stderr, "rngtest: {}\n", e.what());
      return kExitUsage;
    } catch (const Error& e) {
      fmt::print(stderr, "rngtest: cannot read source '{}': {}\n", o.source, e.what());
      return kExitIoError;
    }
  }
  Input input(std::move(source), o.pipe, g_signal);
  std::uint32_t seed = 0;
  if (!bootstrap(input, o.pipe, stats, seed)) return kExitFail;

  int status = test_blocks(o, input, stats, seed);
  print_stats(stats, o.pipe);
  if (status == kExitSuccess && (stats.bad_blocks != 0 || stats.good_blocks == 0))
    status = kExitFail;
  return status;
}

}  // namespace cryptoaccel::tools::rngtest
