// RDRAND and RDSEED, where CPUID says the CPU has them.
//
// Both may report "no value yet" (carry clear). Intel's DRNG software guide
// says a RDRAND failure is transient and ten retries make a failure
// practically impossible on a working part; RDSEED fails routinely under
// load and should be retried after a PAUSE. Beyond the retries the source
// fails rather than spin.
#include <cstring>

#include "raw_source.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace cryptoaccel::rng {
namespace {

constexpr int kRdrandRetries = 10;
constexpr int kRdseedRetries = 1000;

enum class Instruction { rdrand, rdseed };

bool cpu_has(Instruction which) {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (which == Instruction::rdrand) return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_RDRND);
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_RDSEED);
#else
  (void)which;
  return false;
#endif
}

#if defined(__x86_64__)
__attribute__((target("rdrnd"))) bool next_rdrand(std::uint64_t& value) {
  unsigned long long v;
  for (int i = 0; i < kRdrandRetries; ++i)
    if (_rdrand64_step(&v)) {
      value = v;
      return true;
    }
  return false;
}

__attribute__((target("rdseed"))) bool next_rdseed(std::uint64_t& value) {
  unsigned long long v;
  for (int i = 0; i < kRdseedRetries; ++i) {
    if (_rdseed64_step(&v)) {
      value = v;
      return true;
    }
    _mm_pause();
  }
  return false;
}
#endif

class CpuSource final : public RawSource {
 public:
  explicit CpuSource(Instruction which) : which_(which) {}

  std::size_t read(std::span<std::uint8_t> out) override {
#if defined(__x86_64__)
    for (std::size_t i = 0; i < out.size(); i += 8) {
      std::uint64_t v = 0;
      const bool ok = which_ == Instruction::rdrand ? next_rdrand(v) : next_rdseed(v);
      if (!ok)
        throw DriverFailure(which_ == Instruction::rdrand
                                ? "rdrand: no value after " + std::to_string(kRdrandRetries) +
                                      " tries (the CPU's generator is failing)"
                                : "rdseed: no value after " + std::to_string(kRdseedRetries) +
                                      " tries (the CPU's entropy source is exhausted or failing)");
      std::memcpy(out.data() + i, &v, std::min<std::size_t>(8, out.size() - i));
    }
    return out.size();
#else
    (void)out;
    throw Unsupported("RDRAND/RDSEED exist on x86-64 only");
#endif
  }

 private:
  Instruction which_;
};

RandomSourceInfo probe(Instruction which) {
  const bool rdrand = which == Instruction::rdrand;
  RandomSourceInfo info{
      .name = rdrand ? "rdrand" : "rdseed",
      .kind = RandomSourceKind::hardware,
      .description = rdrand ? "the CPU's RDRAND instruction (its DRBG, reseeded in hardware)"
                            : "the CPU's RDSEED instruction (its conditioned entropy source)",
      .entropy_per_sample = kClaimedEntropyPerByte};
  info.available = cpu_has(which);
  if (!info.available)
    info.detail = rdrand ? "CPUID: this CPU has no RDRAND" : "CPUID: this CPU has no RDSEED";
  return info;
}

}  // namespace

RandomSourceInfo probe_rdrand() {
  return probe(Instruction::rdrand);
}

RandomSourceInfo probe_rdseed() {
  return probe(Instruction::rdseed);
}

std::unique_ptr<RawSource> open_rdrand() {
  if (!cpu_has(Instruction::rdrand)) throw Unsupported(probe_rdrand().detail);
  return std::make_unique<CpuSource>(Instruction::rdrand);
}

std::unique_ptr<RawSource> open_rdseed() {
  if (!cpu_has(Instruction::rdseed)) throw Unsupported(probe_rdseed().detail);
  return std::make_unique<CpuSource>(Instruction::rdseed);
}

}  // namespace cryptoaccel::rng
