// Runs known-answer vectors through one driver, pinned, and says which ones
// gave a wrong answer. No GoogleTest here: kat_test.cpp turns the result into
// test outcomes.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "cryptoaccel/driver/driver.hpp"
#include "vector_loader.hpp"

namespace cryptoaccel::kat {

struct RunResult {
  std::size_t vectors = 0;      // vectors run; each counts once, whatever it exercised
  std::size_t streamed = 0;     // of those, also checked through update()/final()
  std::size_t must_reject = 0;  // AEAD opens that must fail authentication
  std::size_t rejected = 0;     // ... and did, with a wiped output
  // Vectors whose lengths the driver does not claim (a kernel GCM takes
  // 12-byte nonces only): not run, counted, and shown in the summary.
  std::size_t outside = 0;
  std::size_t outside_forgeries = 0;  // of those, AEAD opens that must fail
  std::vector<std::string> failures;  // "source: what went wrong", one per failing vector
};

// Every session is made with SessionOptions{.driver = driver}, and every
// request must report that driver as the one that served it. A session is
// reused while consecutive vectors share algorithm and key, as an application
// would reuse it; after a failure the next vector starts on fresh sessions.
// Vectors outside `capability` (key, IV or tag length, input size) are
// counted in `outside`, not run; null runs them all.
RunResult run_vectors(std::span<const KatVector> vectors, const std::string& driver,
                      const Capability* capability = nullptr);

}  // namespace cryptoaccel::kat
