// The library leaves no AVX upper state in use on the caller's thread:
// OpenSSL 3.0's ChaCha20-Poly1305 does, and on Intel CPUs every later
// legacy-SSE instruction of the thread then pays for it (an application's
// own OpenSSL calls ran 2.7 times slower). Read with XGETBV(1), XINUSE.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cryptoaccel/cryptoaccel.hpp"
#include "cryptoaccel/driver/vector_state.hpp"

namespace {

#if defined(__x86_64__)
#include <cpuid.h>

// XINUSE, where the CPU reports it (CPUID.(EAX=0DH,ECX=1):EAX[2]).
bool xinuse_supported() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0, nullptr) < 0xd) return false;
  __cpuid_count(1, 0, a, b, c, d);
  if ((c & bit_OSXSAVE) == 0 || (c & bit_AVX) == 0) return false;
  __cpuid_count(0xd, 1, a, b, c, d);
  return (a & (1u << 2)) != 0;
}

bool avx_upper_in_use() {
  std::uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
  return (lo & (1u << 2)) != 0;  // YMM_Hi128
}
#endif

TEST(VectorState, NoDriverLeavesTheAvxUpperStateInUse) {
#if defined(__x86_64__)
  if (!xinuse_supported()) GTEST_SKIP() << "this CPU does not report XINUSE";
  using namespace cryptoaccel;
  Framework& framework = Framework::global();
  EXPECT_FALSE(avx_upper_in_use()) << "after the drivers' self-tests";
  for (const DriverInfo& d : framework.drivers()) {
    for (const Capability& c : d.capabilities) {
      const Algorithm& a = algorithm(c.algorithm);
      if (a.kind != AlgorithmKind::aead || d.name == "null") continue;
      std::vector<std::uint8_t> key(a.key_size.min, 1), iv(a.iv_size, 2), buf(1024, 3), tag(16);
      for (const std::size_t size : {16, 1024}) {
        AeadSession s(a.name, key, {.driver = d.name});
        clear_upper_vector_state();
        s.seal(iv, {}, {buf.data(), size}, {buf.data(), size}, tag);
        EXPECT_FALSE(avx_upper_in_use()) << a.name << " on " << d.name << ", " << size << " bytes";
      }
    }
  }
#else
  GTEST_SKIP() << "x86-64 only";
#endif
}

}  // namespace
