#include "campaign.hpp"

#include "sequences.hpp"

namespace cryptoaccel::fuzz {

std::optional<Failure> run_once(const Setup& setup, const Target& t,
                                const std::vector<Record>& records, const OpFilter& filter,
                                Allowances& allowances, const std::string& crash_header,
                                std::vector<std::string>* trace) {
  Differential d(allowances);
  set_crash_context(&d.trace(), crash_header);
  std::optional<Failure> failure;
  try {
    run_sequence(setup, t, records, d, filter);
  } catch (const Difference& e) {
    failure = Failure{e.op, e.what(), d.trace()};
  }
  set_crash_context(nullptr, "");
  if (trace != nullptr) *trace = d.trace();
  return failure;
}

std::vector<Record> minimise(const Setup& setup, const Target& t, std::vector<Record> records,
                             const std::string& op, const OpFilter& filter) {
  Allowances scratch;
  for (bool shrunk = true; shrunk;) {
    shrunk = false;
    for (std::size_t i = records.size(); i-- > 0;) {
      std::vector<Record> fewer = records;
      fewer.erase(fewer.begin() + static_cast<long>(i));
      if (fewer.empty()) continue;
      const auto f = run_once(setup, t, fewer, filter, scratch, "(while minimising)");
      if (f && f->op == op) {
        records = std::move(fewer);
        shrunk = true;
      }
    }
  }
  return records;
}

std::string format_failure(const Target& t, const Failure& f) {
  std::string s = "DIFFERENCE in " + t.name + " (" + family_name(t.family) + ") at operation " +
                  f.op + ": " + f.what + "\n";
  for (const std::string& line : f.trace) s += "  " + line + "\n";
  return s;
}

const Target* fuzzer_input_target(const Setup& setup, std::span<const std::uint8_t> input) {
  if (input.size() < 2 || setup.targets.empty()) return nullptr;
  return &setup.targets[(std::size_t{input[0]} << 8 | input[1]) % setup.targets.size()];
}

}  // namespace cryptoaccel::fuzz
