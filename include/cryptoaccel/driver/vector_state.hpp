// For code that calls a library's vector code (OpenSSL, libipsec-mb, DPDK)
// on the application's thread. Code that leaves the upper halves of the AVX
// registers in use (OpenSSL 3.0's ChaCha20-Poly1305 does) makes every later
// legacy-SSE instruction of that thread pay for them on Intel CPUs: an
// application's OpenSSL calls ran 2.7 times slower after loading the
// provider, whose self-test had run that cipher once. Clearing them costs
// one instruction.
#pragma once

namespace cryptoaccel {

// vzeroupper where the CPU has AVX; nothing elsewhere.
inline void clear_upper_vector_state() noexcept {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool avx = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx") != 0;
  }();
  if (avx) __asm__ volatile("vzeroupper" ::: "memory");
#endif
}

}  // namespace cryptoaccel
