// libFuzzer entry (docs/testing.md): the first two bytes choose the
// algorithm, the rest are the sequence's records. A difference prints its
// trace and aborts, so libFuzzer keeps the input; `evp_differential
// --fuzzer-input FILE` replays a kept input with its trace (a crash too).
//   CRYPTOACCEL_PROVIDER_MODULE  the module (default: the build's)
//   CRYPTOACCEL_FUZZ_SKIP_OPS    operations to leave out, comma-separated
//   CRYPTOACCEL_FUZZ_SELF_CHECK  1: default against default
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>

#include "campaign.hpp"

using namespace cryptoaccel::fuzz;

namespace {

struct State {
  std::unique_ptr<Setup> setup;
  OpFilter filter;
  Allowances allowances;
};

State& state() {
  static State s = [] {
    State st;
    const char* module = std::getenv("CRYPTOACCEL_PROVIDER_MODULE");
    const char* self = std::getenv("CRYPTOACCEL_FUZZ_SELF_CHECK");
    st.setup = std::make_unique<Setup>(module ? module : CRYPTOACCEL_PROVIDER_MODULE,
                                       self != nullptr && std::string(self) == "1");
    if (const char* skip = std::getenv("CRYPTOACCEL_FUZZ_SKIP_OPS")) {
      std::stringstream list(skip);
      for (std::string op; std::getline(list, op, ',');) st.filter.skipped.insert(op);
    }
    return st;  // crashes: libFuzzer's own handler keeps the input
  }();
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  State& s = state();
  const Target* target = fuzzer_input_target(*s.setup, {data, size});
  if (target == nullptr) return 0;
  const Target& t = *target;
  const auto records = parse_records({data + 2, size - 2});
  if (auto f =
          run_once(*s.setup, t, records, s.filter, s.allowances, "in " + t.name + " (libFuzzer)")) {
    std::cerr << format_failure(t, *f);
    std::abort();
  }
  return 0;
}
