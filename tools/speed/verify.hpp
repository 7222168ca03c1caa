// Before a driver is timed, its output is checked against `soft` on random
// input: a fast wrong answer is not a result.
#pragma once

#include <optional>
#include <string>

#include "cryptoaccel/algorithm.hpp"
#include "cryptoaccel/session.hpp"

namespace cryptoaccel::tools::speed {

// The session options of `--driver NAME`: that driver alone, or for
// "auto" the dispatcher's choice.
SessionOptions pinned_to(const std::string& driver);

// Null when `driver` ("auto" or a name) agrees with soft at this size (and its
// decryption and open undo the encryption); otherwise what differed.
std::optional<std::string> verify(const Algorithm& algorithm, const std::string& driver,
                                  std::size_t size);

}  // namespace cryptoaccel::tools::speed
