// What the profile reader must do with any bytes at all (issue 15): return
// a profile or throw InvalidArgument with a reason of bounded length, and
// nothing else (another exception, a crash, undefined behaviour, a hang). A
// profile it returns writes back to text that reads back to the same
// profile. Used by the libFuzzer entry (profile_fuzzer.cpp, clang) and by
// the deterministic run in the unit tests (gcc, and ASan+UBSan there).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cryptoaccel/error.hpp"
#include "cryptoaccel/profile.hpp"

namespace cryptoaccel::fuzz {

[[noreturn]] inline void profile_check_failed(const char* what, const std::string& detail) {
  std::fprintf(stderr, "profile check failed: %s: %.300s\n", what, detail.c_str());
  std::abort();
}

// True when the bytes were a profile.
inline bool check_profile_input(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Profile p;
  try {
    p = parse_profile(text);
  } catch (const InvalidArgument& e) {
    const std::string why = e.what();
    if (why.empty() || why.size() > 1024) profile_check_failed("reason empty or unbounded", why);
    return false;
  }
  if (p.version != kProfileVersion) profile_check_failed("version", std::to_string(p.version));
  for (const Measurement& m : p.measurements)
    if (m.size == 0 || m.size > kMaxMeasuredSize || m.in_flight == 0 || m.workers == 0 ||
        !(m.bytes_per_second > 0) || !(m.cpu_seconds_per_byte >= 0) ||
        !std::isfinite(m.bytes_per_second) || !std::isfinite(m.cpu_seconds_per_byte) ||
        !p.drivers.contains(m.driver))
      profile_check_failed("impossible measurement accepted", m.driver);
  const std::string written = to_json(p);
  Profile again;
  try {
    again = parse_profile(written);
  } catch (const InvalidArgument& e) {
    profile_check_failed("written profile refused", e.what());
  }
  if (to_json(again) != written) profile_check_failed("round trip changed the profile", written);
  return true;
}

}  // namespace cryptoaccel::fuzz
