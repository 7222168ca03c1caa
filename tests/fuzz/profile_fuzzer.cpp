// libFuzzer entry for the profile reader (-DCRYPTOACCEL_FUZZ=ON, target
// profile_fuzzer; docs/testing.md "The profile fuzzer"): any bytes are a
// profile or a reason, nothing else.
#include "profile_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cryptoaccel::fuzz::check_profile_input(data, size);
  return 0;
}
