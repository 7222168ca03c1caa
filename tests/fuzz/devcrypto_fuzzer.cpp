// libFuzzer entry for the /dev/crypto request decoder (-DCRYPTOACCEL_FUZZ=ON,
// target devcrypto_fuzzer; docs/testing.md "The /dev/crypto decoder
// fuzzer"): any sequence of client requests is answered within the
// protocol's rules. With CRYPTOACCEL_DEVCRYPTO_SEED=FILE it first writes a
// valid sequence there, to start a corpus from, and FILE.32 the same as a
// 32-bit program's, with requests queued in one layout and fetched in the other.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "devcrypto_check.hpp"
#include "devcrypto_seed.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* path = std::getenv("CRYPTOACCEL_DEVCRYPTO_SEED")) {
    const auto seed = cryptoaccel::fuzz::devcrypto_seed();
    if (std::FILE* f = std::fopen(path, "wb")) {
      std::fwrite(seed.data(), 1, seed.size(), f);
      std::fclose(f);
    }
    const auto seed32 = cryptoaccel::fuzz::devcrypto_seed32();
    if (std::FILE* f = std::fopen((std::string(path) + ".32").c_str(), "wb")) {
      std::fwrite(seed32.data(), 1, seed32.size(), f);
      std::fclose(f);
    }
  }
  cryptoaccel::fuzz::fuzz_service();  // the framework's self-tests, once, before the clock
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cryptoaccel::fuzz::check_devcrypto_input(data, size);
  return 0;
}
