// The interpreters of a sequence: each reads its records as EVP calls on
// one algorithm and applies every call to both sides through Differential.
// The first record is always read as an initialisation.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "differential.hpp"
#include "records.hpp"
#include "targets.hpp"

namespace cryptoaccel::fuzz {

void run_cipher_sequence(const Target& t, std::span<const Record> records, Differential& d,
                         const OpFilter& filter);
void run_digest_sequence(const Target& t, std::span<const Record> records, Differential& d,
                         const OpFilter& filter);
void run_mac_sequence(const Setup& setup, const Target& t, std::span<const Record> records,
                      Differential& d, const OpFilter& filter);

// One sequence on `t`, by family; throws Difference on the first difference.
void run_sequence(const Setup& setup, const Target& t, std::span<const Record> records,
                  Differential& d, const OpFilter& filter);

// The operation names of each family, for --skip-op and --list.
std::vector<std::string> cipher_operation_names();
std::vector<std::string> digest_operation_names();
std::vector<std::string> mac_operation_names();

// The operation `byte` picks from `ops`, each as often as its weight.
template <typename Operation, std::size_t N>
const Operation& pick_weighted(const std::array<Operation, N>& ops, std::uint8_t byte) {
  unsigned total = 0;
  for (const Operation& op : ops) total += op.weight;
  unsigned at = byte % total;
  for (const Operation& op : ops) {
    if (at < op.weight) return op;
    at -= op.weight;
  }
  return ops[0];
}

// Lengths the sequences pick from: block edges, TLS sizes, and anything.
std::size_t pick_length(const Record& r, std::size_t i, std::size_t max);

}  // namespace cryptoaccel::fuzz
