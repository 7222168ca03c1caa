// Random sources: /dev/hwrng, getrandom(2), the CPU's RDRAND and RDSEED, the
// kernel's AF_ALG "rng" algorithms, and files or stdin. Every source opened
// here runs the SP 800-90B continuous health tests (Repetition Count and
// Adaptive Proportion) on what it reads; a source that fails them is out of
// service for good: every later read throws HealthTestFailure too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cryptoaccel/error.hpp"

namespace cryptoaccel {

enum class RandomSourceKind : std::uint8_t {
  hardware,  // a device or the CPU: /dev/hwrng, RDSEED, RDRAND
  software,  // a kernel generator: getrandom, AF_ALG stdrng, jitterentropy
  input,     // data someone else produced: a file or stdin
};

std::string_view to_string(RandomSourceKind kind) noexcept;

// The cutoffs of SP 800-90B §4.4 for a claimed min-entropy per sample and a
// false-positive probability alpha = 2^-20 per test decision.
struct HealthParameters {
  double entropy_per_sample = 0;  // H, bits
  unsigned bits_per_sample = 8;   // samples are bytes here
  unsigned rct_cutoff = 0;        // C = 1 + ceil(20 / H): C equal samples in a row fail
  unsigned apt_window = 0;        // W = 1024 for 1-bit samples, else 512
  unsigned apt_cutoff = 0;        // C = 1 + CRITBINOM(W, 2^-H, 1 - 2^-20)
};

// Derives the cutoffs; throws InvalidArgument unless 0 < H <= bits_per_sample
// and bits_per_sample is 1 or 8.
HealthParameters health_parameters(double entropy_per_sample, unsigned bits_per_sample = 8);

// A source taken out of service by a failed health test. The message names
// the source, the test, the count and the cutoff.
class HealthTestFailure : public DriverFailure {
 public:
  explicit HealthTestFailure(const std::string& message) : DriverFailure(message) {}
};

// What `random_sources()` found for one source.
struct RandomSourceInfo {
  std::string name;  // what open_random_source() takes: "hwrng", "afalg:stdrng"
  RandomSourceKind kind = RandomSourceKind::software;
  std::string description;  // "kernel hardware RNG virtio_rng.0"
  bool available = false;
  std::string detail;             // why not available, or what backs it
  double entropy_per_sample = 0;  // the claim the health tests are set from
};

// Counters of one opened source (CRYPTOACCEL_STATS-style observability:
// "was my hardware RNG used at all?").
struct RandomSourceStats {
  std::uint64_t reads = 0;         // calls to read()
  std::uint64_t bytes = 0;         // bytes handed to the caller
  std::uint64_t tested_bytes = 0;  // samples through the health tests (startup included)
  bool failed = false;             // out of service
};

class RandomSource {
 public:
  virtual ~RandomSource() = default;
  RandomSource() = default;
  RandomSource(const RandomSource&) = delete;
  RandomSource& operator=(const RandomSource&) = delete;

  // Fills `out` and returns out.size(), except for an input source (file,
  // stdin) that ends: then returns what was left, 0 at its end. Throws
  // HealthTestFailure when the data fails a health test (`out` is wiped),
  // DriverFailure when the source cannot be read.
  virtual std::size_t read(std::span<std::uint8_t> out) = 0;

  virtual const RandomSourceInfo& info() const noexcept = 0;
  virtual const HealthParameters& health() const noexcept = 0;
  virtual RandomSourceStats stats() const noexcept = 0;
};

// Every source this library knows, found or not, in order of preference
// among the hardware ones (see best_hardware_source()).
std::vector<RandomSourceInfo> random_sources();

// Opens a source by name, with the health tests on:
//   hwrng        /dev/hwrng (the kernel's current hardware RNG)
//   getrandom    getrandom(2)
//   rdrand       RDRAND (x86-64, where CPUID says the CPU has it)
//   rdseed       RDSEED (likewise)
//   rndr         RNDR (AArch64, where HWCAP2 says the CPU has FEAT_RNG)
//   rndrrs       RNDRRS (likewise)
//   afalg[:ALG]  an AF_ALG "rng" socket bound to ALG (default stdrng)
//   file:PATH    a file; "-" or "stdin" reads standard input
//   best         best_hardware_source()
// Throws NotFound for an unknown name, Unsupported when the source is absent
// here (the message says why), DriverFailure when it cannot be opened, and
// HealthTestFailure when its start-up test fails. The caller owns the source.
std::unique_ptr<RandomSource> open_random_source(std::string_view name);

// The first hardware source that opens and passes its start-up test, in the
// order hwrng, rdseed, rdrand, rndrrs, rndr: a dedicated device first, then
// the CPU's entropy source, then its DRBG (x86-64's, then AArch64's; a CPU
// has at most one pair). Throws Unsupported, naming every reason,
// when there is none.
std::unique_ptr<RandomSource> best_hardware_source();

}  // namespace cryptoaccel
