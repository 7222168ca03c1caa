// evp_differential: seeded differential runs of cryptoaccel against
// OpenSSL's default provider (docs/testing.md, "The differential fuzzer").
//
//   evp_differential --sequences N --seed S [--family F] [--algorithm NAME]
//                    [--skip-op OP,...] [--keep-going] [--self-check]
//
// Sequence i of seed S is the same whatever else is selected, so a
// failure's repro line runs it alone.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>

#include "campaign.hpp"
#include "sequences.hpp"

using namespace cryptoaccel::fuzz;

namespace {

struct Options {
  long sequences = 1000;
  std::uint64_t seed = 1;
  long start = 0;
  std::vector<std::string> algorithms, families, skip_ops;
  std::string module = CRYPTOACCEL_PROVIDER_MODULE;
  std::string config;
  std::string records_hex, fuzzer_input;
  bool self_check = false, keep_going = false, no_minimise = false, list = false, print = false;
  std::size_t max_records = 40;
};

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool selected(const Options& o, const Target& t) {
  if (!o.families.empty() &&
      std::find(o.families.begin(), o.families.end(), family_name(t.family)) == o.families.end())
    return false;
  if (o.algorithms.empty()) return true;
  for (const std::string& a : o.algorithms)
    if (upper(a) == t.name) return true;
  return false;
}

// The records of sequence `index` of `seed`.
std::vector<Record> generate(std::uint64_t seed, long index, std::size_t max_records) {
  SplitMix g(seed * 0x100000001b3ULL ^ static_cast<std::uint64_t>(index) * 0x9e3779b97f4a7c15ULL);
  const std::size_t n = 1 + g.next() % max_records;
  Bytes bytes(n * Record::kSize);
  for (std::size_t i = 0; i < bytes.size(); i += 8) {
    const std::uint64_t v = g.next();
    for (std::size_t j = 0; j < 8; ++j) bytes[i + j] = static_cast<unsigned char>(v >> (8 * j));
  }
  return parse_records(bytes);
}

Bytes unhex(const std::string& s) {
  Bytes b;
  for (std::size_t i = 0; i + 1 < s.size(); i += 2)
    b.push_back(static_cast<unsigned char>(std::stoi(s.substr(i, 2), nullptr, 16)));
  return b;
}

std::string join(const std::vector<std::string>& v, const char* sep = ",") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string repro(const Options& o, const Target& t, const std::string& records_hex) {
  std::string s = "evp_differential --algorithm '" + t.name + "' --records " + records_hex;
  if (!o.skip_ops.empty()) s += " --skip-op " + join(o.skip_ops);
  if (o.self_check) s += " --self-check";
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Differential fuzzer: cryptoaccel against OpenSSL's default provider"};
  app.add_option("--sequences", o.sequences, "how many sequences");
  app.add_option("--seed", o.seed, "the run's seed");
  app.add_option("--start", o.start, "the first sequence's index");
  app.add_option("--algorithm", o.algorithms,
                 "only these (e.g. AES-128-GCM, SHA2-256, HMAC/SHA3-256)");
  app.add_option("--family", o.families, "only these: cipher, aead, digest, mac");
  app.add_option("--skip-op", o.skip_ops, "leave out these operations (see --list)")
      ->delimiter(',');
  app.add_option("--provider-module", o.module, "the cryptoaccel module to load");
  app.add_option("--provider-config", o.config,
                 "an OpenSSL configuration whose section `cryptoaccel` loads the module with its "
                 "keys (driver = ..., dpdk = ...)");
  app.add_option("--records", o.records_hex, "run this one sequence (hex records) on --algorithm");
  app.add_option("--fuzzer-input", o.fuzzer_input, "replay a libFuzzer input file, with its trace");
  app.add_option("--max-records", o.max_records, "operations per sequence, at most");
  app.add_flag("--self-check", o.self_check,
               "B is OpenSSL's default provider too: must never differ");
  app.add_flag("--keep-going", o.keep_going,
               "report the first difference of each operation and algorithm, then go on");
  app.add_flag("--no-minimise", o.no_minimise, "print failing sequences as found");
  app.add_flag("--list", o.list, "list algorithms and operations");
  app.add_flag("--print", o.print, "print every sequence's trace");
  CLI11_PARSE(app, argc, argv);

  OpFilter filter;
  filter.skipped.insert(o.skip_ops.begin(), o.skip_ops.end());
  Setup setup(o.module, o.self_check, o.config);
  std::vector<const Target*> targets;
  for (const Target& t : setup.targets)
    if (selected(o, t)) targets.push_back(&t);

  if (o.list) {
    for (const Target& t : setup.targets)
      std::cout << family_name(t.family) << " " << t.name << "\n";
    for (const std::string& s : setup.skipped)
      std::cout << "not in the default provider: " << s << "\n";
    std::cout << "cipher operations: " << join(cipher_operation_names(), " ") << "\n"
              << "digest operations: " << join(digest_operation_names(), " ") << "\n"
              << "mac operations: " << join(mac_operation_names(), " ") << "\n";
    return 0;
  }
  if (targets.empty()) {
    std::cerr << "no algorithm selected\n";
    return 2;
  }
  install_crash_reporter();
  Allowances allowances;

  if (!o.fuzzer_input.empty()) {
    std::ifstream file(o.fuzzer_input, std::ios::binary);
    const std::vector<std::uint8_t> input((std::istreambuf_iterator<char>(file)), {});
    const Target* t = fuzzer_input_target(setup, input);
    if (t == nullptr) {
      std::cerr << o.fuzzer_input << ": too short\n";
      return 2;
    }
    std::vector<std::string> trace;
    const auto f = run_once(setup, *t, parse_records({input.data() + 2, input.size() - 2}), filter,
                            allowances, "in " + t->name + " (" + o.fuzzer_input + ")", &trace);
    if (f)
      std::cout << format_failure(*t, *f);
    else {
      std::cout << "no difference in " << t->name << ":\n";
      for (const std::string& line : trace) std::cout << "  " << line << "\n";
    }
    return f ? 1 : 0;
  }

  if (!o.records_hex.empty()) {
    const Target& t = *targets.front();
    const auto f = run_once(setup, t, parse_records(unhex(o.records_hex)), filter, allowances,
                            "in " + t.name + " (--records)");
    if (f)
      std::cout << format_failure(t, *f);
    else
      std::cout << "no difference\n";
    return f ? 1 : 0;
  }

  const auto started = std::chrono::steady_clock::now();
  std::map<std::string, long> counts;  // "op  algorithm" -> failing sequences
  long failures = 0, ran = 0;
  for (long i = o.start; i < o.start + o.sequences; ++i) {
    const Target& t = *targets[static_cast<std::size_t>(i) % targets.size()];
    std::vector<Record> records = generate(o.seed, i, o.max_records);
    ++ran;
    const std::string where =
        "in " + t.name + ", seed " + std::to_string(o.seed) + " sequence " + std::to_string(i);
    std::vector<std::string> trace;
    auto f = run_once(setup, t, records, filter, allowances, where, &trace);
    if (o.print) {
      std::cout << "sequence " << i << " on " << t.name << ":\n";
      for (const std::string& line : trace) std::cout << "  " << line << "\n";
    }
    if (!f) continue;
    ++failures;
    const std::string key = f->op + "  " + t.name;
    if (counts[key]++ > 0) continue;  // --keep-going: the first of each only
    if (!o.no_minimise) {
      records = minimise(setup, t, records, f->op, filter);
      Allowances scratch;
      if (auto g = run_once(setup, t, records, filter, scratch, where)) f = std::move(g);
    }
    std::cout << format_failure(t, *f) << "  found " << where
              << "; repro: " << repro(o, t, hex(serialise_records(records), 1u << 20)) << "\n\n";
    std::cout.flush();
    if (!o.keep_going) break;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << (o.self_check ? "self-check (default against default): " : "") << ran
            << " sequences over " << targets.size() << " algorithms, seed " << o.seed << ", "
            << seconds << " s; " << failures << " with a difference; allowance "
            << "zeroed_unverified_plaintext applied " << allowances.zeroed_unverified_plaintext
            << " times\n";
  for (const auto& [name, n] : allowances.documented)
    std::cout << "documented difference " << name << ": " << n << " calls not compared\n";
  if (!counts.empty()) {
    std::cout << "differences (operation, algorithm: sequences):\n";
    for (const auto& [key, n] : counts) std::cout << "  " << key << ": " << n << "\n";
  }
  return failures == 0 ? 0 : 1;
}
