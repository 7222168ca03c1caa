// Small helpers shared by the unit tests.
#pragma once

#include <openssl/rand.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "core/hex.hpp"

namespace cryptoaccel::test {

// Whether this build runs under ThreadSanitizer (GCC says so with
// __SANITIZE_THREAD__, clang with __has_feature): a test that sweeps
// timings may take smaller steps there, where each costs several times more.
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kUnderThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kUnderThreadSanitizer = true;
#else
inline constexpr bool kUnderThreadSanitizer = false;
#endif
#else
inline constexpr bool kUnderThreadSanitizer = false;
#endif

// A pointer as the 64-bit address a /dev/crypto client passes in its structs.
inline std::uint64_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

using ByteVector = std::vector<std::uint8_t>;

inline ByteVector hex(std::string_view text) {
  auto bytes = detail::hex_decode(text);
  if (!bytes) throw std::invalid_argument("bad hex in test");
  return *bytes;
}

inline ByteVector random_bytes(std::size_t n) {
  ByteVector out(n);
  if (n != 0 && RAND_bytes(out.data(), static_cast<int>(n)) != 1)
    throw std::runtime_error("RAND_bytes failed");
  return out;
}

// Runs `command` through the shell; its stdout and exit status (-1 when it
// did not exit normally).
struct ShellRun {
  int status = -1;
  std::string out;
};

inline ShellRun run_shell(const std::string& command) {
  ShellRun r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer{};
  while (std::size_t n = fread(buffer.data(), 1, buffer.size(), pipe))
    r.out.append(buffer.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

inline bool all_zero(const ByteVector& v) {
  for (auto b : v)
    if (b != 0) return false;
  return true;
}

}  // namespace cryptoaccel::test
