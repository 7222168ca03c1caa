// The CPU's own random-number instructions, where the CPU says it has them:
//   x86-64   RDRAND (a DRBG reseeded in hardware) and RDSEED (the
//            conditioned entropy source), found through CPUID;
//   AArch64  RNDR and RNDRRS (Armv8.5's FEAT_RNG: the same two, as system
//            registers), found through the kernel's HWCAP2_RNG.
// Elsewhere each is absent, and `list` says on which processor it exists.
//
// Every one of them may report "no value yet": RDRAND/RDSEED with the carry
// flag clear, RNDR/RNDRRS with the Z flag set (and a zero value). Intel's
// DRNG software guide says a RDRAND failure is transient and ten retries
// make a failure practically impossible on a working part; RDSEED fails
// routinely under load and should be retried after a PAUSE. Arm's reference
// manual gives RNDR the same meaning (a failure "in a reasonable period of
// time" is rare; retry), and RNDRRS, which reseeds on every read, fails
// under load as RDSEED does. Beyond the retries the source fails rather
// than spin.
#include <cstring>
#include <string>

#include "raw_source.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#elif defined(__aarch64__)
#include <sys/auxv.h>
#endif

namespace cryptoaccel::rng {
namespace {

enum class Instruction { rdrand, rdseed, rndr, rndrrs };

struct Facts {
  const char* name;
  const char* description;
  const char* processor;  // where the instruction exists
  int retries;
  bool reseeds;  // an entropy source (retried after a pause), not a DRBG
};

Facts facts(Instruction which) {
  switch (which) {
    case Instruction::rdrand:
      return {"rdrand", "the CPU's RDRAND instruction (its DRBG, reseeded in hardware)", "x86-64",
              10, false};
    case Instruction::rdseed:
      return {"rdseed", "the CPU's RDSEED instruction (its conditioned entropy source)", "x86-64",
              1000, true};
    case Instruction::rndr:
      return {"rndr", "the CPU's RNDR register (Armv8.5 FEAT_RNG: its DRBG, reseeded in hardware)",
              "AArch64", 10, false};
    case Instruction::rndrrs:
      return {"rndrrs",
              "the CPU's RNDRRS register (Armv8.5 FEAT_RNG: reseeded from its entropy source on "
              "every read)",
              "AArch64", 1000, true};
  }
  return {"?", "?", "?", 0, false};
}

#if defined(__aarch64__)
// <asm/hwcap.h>'s HWCAP2_RNG, spelled out: older headers lack it.
constexpr unsigned long kHwcap2Rng = 1UL << 16;
#endif

bool cpu_has(Instruction which) {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (which == Instruction::rdrand) return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_RDRND);
  if (which == Instruction::rdseed)
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_RDSEED);
  return false;
#elif defined(__aarch64__)
  if (which != Instruction::rndr && which != Instruction::rndrrs) return false;
  return (getauxval(AT_HWCAP2) & kHwcap2Rng) != 0;
#else
  (void)which;
  return false;
#endif
}

// One 64-bit value, or false when the CPU gave none this time.
bool next_value(Instruction which, std::uint64_t& value);

#if defined(__x86_64__)
__attribute__((target("rdrnd"))) bool rdrand_once(std::uint64_t& value) {
  unsigned long long v;
  if (!_rdrand64_step(&v)) return false;
  value = v;
  return true;
}
__attribute__((target("rdseed"))) bool rdseed_once(std::uint64_t& value) {
  unsigned long long v;
  if (!_rdseed64_step(&v)) return false;
  value = v;
  return true;
}
bool next_value(Instruction which, std::uint64_t& value) {
  return which == Instruction::rdrand ? rdrand_once(value) : rdseed_once(value);
}
void pause() {
  _mm_pause();
}
#elif defined(__aarch64__)
// By their encodings (S3_3_C2_C4_0 and _1), which assemblers without
// Armv8.5 support accept too.
bool next_value(Instruction which, std::uint64_t& value) {
  std::uint64_t v = 0, ok = 0;
  if (which == Instruction::rndr)
    asm volatile("mrs %0, s3_3_c2_c4_0\n\tcset %w1, ne" : "=r"(v), "=r"(ok) : : "cc");
  else
    asm volatile("mrs %0, s3_3_c2_c4_1\n\tcset %w1, ne" : "=r"(v), "=r"(ok) : : "cc");
  value = v;
  return ok != 0;
}
void pause() {
  asm volatile("yield");
}
#else
bool next_value(Instruction, std::uint64_t&) {
  return false;
}
void pause() {}
#endif

class CpuSource final : public RawSource {
 public:
  explicit CpuSource(Instruction which) : which_(which) {}

  std::size_t read(std::span<std::uint8_t> out) override {
    const Facts f = facts(which_);
    for (std::size_t i = 0; i < out.size(); i += 8) {
      std::uint64_t v = 0;
      bool ok = false;
      for (int attempt = 0; attempt < f.retries && !ok; ++attempt) {
        ok = next_value(which_, v);
        if (!ok && f.reseeds) pause();
      }
      if (!ok)
        throw DriverFailure(std::string(f.name) + ": no value after " +
                            std::to_string(f.retries) + " tries (" +
                            (f.reseeds ? "the CPU's entropy source is exhausted or failing)"
                                       : "the CPU's generator is failing)"));
      std::memcpy(out.data() + i, &v, std::min<std::size_t>(8, out.size() - i));
    }
    return out.size();
  }

 private:
  Instruction which_;
};

RandomSourceInfo probe(Instruction which) {
  const Facts f = facts(which);
  RandomSourceInfo info{.name = f.name,
                        .kind = RandomSourceKind::hardware,
                        .description = f.description,
                        .entropy_per_sample = kClaimedEntropyPerByte};
  info.available = cpu_has(which);
  if (info.available) return info;
  const bool x86 = which == Instruction::rdrand || which == Instruction::rdseed;
  // Appended, not `+`-chained: GCC 12 warns (array-bounds) on a temporary
  // string built so, with -O2 and the thread sanitizer.
  std::string where = "exists on ";
  where.append(f.processor).append(" only");
#if defined(__x86_64__)
  if (x86)
    info.detail = which == Instruction::rdrand ? "CPUID: this CPU has no RDRAND"
                                               : "CPUID: this CPU has no RDSEED";
  else
    info.detail = where;
#elif defined(__aarch64__)
  info.detail = x86 ? where : "HWCAP2: this CPU has no FEAT_RNG (RNDR/RNDRRS, Armv8.5)";
#else
  (void)x86;
  info.detail = where;
#endif
  return info;
}

std::unique_ptr<RawSource> open(Instruction which) {
  if (!cpu_has(which)) throw Unsupported(probe(which).detail);
  return std::make_unique<CpuSource>(which);
}

}  // namespace

RandomSourceInfo probe_rdrand() {
  return probe(Instruction::rdrand);
}
RandomSourceInfo probe_rdseed() {
  return probe(Instruction::rdseed);
}
RandomSourceInfo probe_rndr() {
  return probe(Instruction::rndr);
}
RandomSourceInfo probe_rndrrs() {
  return probe(Instruction::rndrrs);
}

std::unique_ptr<RawSource> open_rdrand() {
  return open(Instruction::rdrand);
}
std::unique_ptr<RawSource> open_rdseed() {
  return open(Instruction::rdseed);
}
std::unique_ptr<RawSource> open_rndr() {
  return open(Instruction::rndr);
}
std::unique_ptr<RawSource> open_rndrrs() {
  return open(Instruction::rndrrs);
}

}  // namespace cryptoaccel::rng
