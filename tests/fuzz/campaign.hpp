// One sequence run to its first difference, and the minimiser that
// deletes records while the same operation still differs.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "differential.hpp"
#include "records.hpp"
#include "targets.hpp"

namespace cryptoaccel::fuzz {

struct Failure {
  std::string op;  // the operation that differed
  std::string what;
  std::vector<std::string> trace;
};

// Runs `records` on `t`; the failure, if any. `crash_header` is printed
// with the trace if the process crashes meanwhile.
std::optional<Failure> run_once(const Setup& setup, const Target& t,
                                const std::vector<Record>& records, const OpFilter& filter,
                                Allowances& allowances, const std::string& crash_header,
                                std::vector<std::string>* trace = nullptr);

// The fewest records (by greedy deletion) that still differ at `op`.
std::vector<Record> minimise(const Setup& setup, const Target& t, std::vector<Record> records,
                             const std::string& op, const OpFilter& filter);

std::string format_failure(const Target& t, const Failure& f);

// A libFuzzer input: the first two bytes choose the algorithm among all of
// `setup`'s, the rest are records. Null if too short.
const Target* fuzzer_input_target(const Setup& setup, std::span<const std::uint8_t> input);

}  // namespace cryptoaccel::fuzz
