// `cryptoaccel list`: every driver found, its kind, priority, algorithms and
// self-test results; the driver families that are absent, and why; the
// random sources found.
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "command.hpp"
#include "list_kernel.hpp"
#include "cryptoaccel/cryptoaccel.hpp"
#include "text_table.hpp"

namespace cryptoaccel::tools {
namespace {

// The operations a capability takes, by name: those of the algorithm's
// kind, less any the driver leaves out (a device's pkcs1pad(rsa) encrypts
// and decrypts only).
std::vector<std::string> operation_names(const Capability& c) {
  const Algorithm& a = algorithm(c.algorithm);
  std::vector<std::pair<Operation, const char*>> all;
  switch (a.kind) {
    case AlgorithmKind::cipher:
    case AlgorithmKind::aead:
      all = {{Operation::encrypt, "encrypt"}, {Operation::decrypt, "decrypt"}};
      break;
    case AlgorithmKind::digest:
    case AlgorithmKind::mac:
      all = {{Operation::digest, "digest"}};
      break;
    case AlgorithmKind::public_key:
      all = {{Operation::sign, "sign"},
             {Operation::verify, "verify"},
             {Operation::encrypt, "encrypt"},
             {Operation::decrypt, "decrypt"}};
      break;
  }
  std::vector<std::string> names;
  for (const auto& [op, name] : all)
    if ((c.operations & operation_bit(op)) != 0) names.emplace_back(name);
  return names;
}

// "; takes encrypt, decrypt only" where a driver leaves operations out.
std::string restricted_operations(const Capability& c) {
  if (c.operations == kEveryOperation) return {};
  std::string text = "; takes ";
  const auto names = operation_names(c);
  for (std::size_t i = 0; i < names.size(); ++i) text += (i != 0 ? ", " : "") + names[i];
  return text + " only";
}

struct ListOptions {
  bool json = false;
  bool verbose = false;
  bool algorithms = false;
  bool kernel = false;
};

std::string range(const SizeRange& r) {
  if (r.max == 0) return "-";
  return r.min == r.max ? std::to_string(r.min) : fmt::format("{}-{}", r.min, r.max);
}

std::string self_test_word(const SelfTestResult& t) {
  if (!t.tested) return "not tested";
  return t.passed ? "passed" : "FAILED";
}

nlohmann::json size_json(const SizeRange& r) {
  return {{"min", r.min}, {"max", r.max}};
}

nlohmann::json algorithm_json(const Algorithm& a) {
  nlohmann::json j{{"name", a.name},
                   {"openssl_name", a.openssl_name},
                   {"kind", to_string(a.kind)},
                   {"key_bytes", size_json(a.key_size)},
                   {"iv_bytes", a.iv_size},
                   {"block_bytes", a.block_size},
                   {"insecure", a.insecure}};
  if (a.mode != CipherMode::none) j["mode"] = to_string(a.mode);
  if (a.kind == AlgorithmKind::aead) j["tag_bytes"] = size_json(a.tag_sizes);
  if (a.kind == AlgorithmKind::digest || a.kind == AlgorithmKind::mac)
    j["output_bytes"] = a.output_size;
  if (!a.note.empty()) j["note"] = a.note;
  return j;
}

nlohmann::json to_json(const Framework& framework) {
  nlohmann::json drivers = nlohmann::json::array();
  for (const DriverInfo& d : framework.drivers()) {
    nlohmann::json algs = nlohmann::json::array();
    for (std::size_t i = 0; i < d.capabilities.size(); ++i) {
      const Capability& c = d.capabilities[i];
      const SelfTestResult& t = d.self_tests[i];
      algs.push_back({{"name", algorithm(c.algorithm).name},
                      {"self_test", self_test_word(t) == "FAILED" ? "failed" : self_test_word(t)},
                      {"enabled", t.passed},
                      {"detail", t.detail},
                      {"key_bytes", size_json(c.key_sizes)},
                      {"iv_bytes", size_json(c.iv_sizes)},
                      {"tag_bytes", size_json(c.tag_sizes)},
                      {"max_request_bytes", c.max_request},
                      {"input_multiple_bytes", c.input_multiple},
                      {"operations", operation_names(c)}});
    }
    drivers.push_back({{"name", d.name},
                       {"kind", to_string(d.traits.kind)},
                       {"priority", d.traits.priority},
                       {"automatic", d.traits.automatic},
                       {"description", d.description},
                       {"algorithms", std::move(algs)}});
  }
  nlohmann::json absent = nlohmann::json::array();
  for (const AbsentDriver& a : framework.absent())
    absent.push_back({{"family", a.family}, {"reason", a.reason}});
  nlohmann::json table = nlohmann::json::array();
  for (const Algorithm& a : algorithms()) table.push_back(algorithm_json(a));
  const DispatchInfo dispatch = framework.dispatch_info();
  nlohmann::json sources = nlohmann::json::array();
  for (const RandomSourceInfo& r : random_sources())
    sources.push_back({{"name", r.name},
                       {"kind", to_string(r.kind)},
                       {"available", r.available},
                       {"description", r.description},
                       {"detail", r.detail},
                       {"claimed_entropy_per_byte", r.entropy_per_sample}});
  return {{"version", CRYPTOACCEL_VERSION_STRING},
          {"random_sources", std::move(sources)},
          {"policy", to_string(framework.policy())},
          {"dispatch",
           {{"policy", to_string(dispatch.policy)},
            {"offload_share", dispatch.offload_share},
            {"profiled", dispatch.profiled},
            {"profile", dispatch.profile_path},
            {"detail", dispatch.detail},
            {"quarantined", dispatch.quarantined}}},
          {"drivers", std::move(drivers)},
          {"absent", std::move(absent)},
          {"notes", framework.notes()},
          {"algorithms", std::move(table)}};
}

void print_algorithm_table() {
  TextTable table({"ALGORITHM", "OPENSSL NAME", "KIND", "KEY", "IV", "TAG/OUT", "NOTE"});
  for (const Algorithm& a : algorithms()) {
    const std::string out = a.kind == AlgorithmKind::aead ? range(a.tag_sizes)
                            : (a.kind == AlgorithmKind::digest || a.kind == AlgorithmKind::mac)
                                ? std::to_string(a.output_size)
                                : "-";
    std::string note = a.insecure ? "INSECURE: " + std::string(a.note) : std::string(a.note);
    table.add({std::string(a.name), std::string(a.openssl_name), std::string(to_string(a.kind)),
               range(a.key_size), a.iv_size ? std::to_string(a.iv_size) : "-", out, note});
  }
  fmt::print("Algorithms (lengths in bytes):\n");
  table.print(stdout);
}

void print_text(const Framework& framework, const ListOptions& options) {
  const DispatchInfo dispatch = framework.dispatch_info();
  fmt::print("cryptoaccel {}, policy {}\n", CRYPTOACCEL_VERSION_STRING,
             to_string(framework.policy()));
  if (dispatch.profiled)
    fmt::print("Dispatch: by measured speed per request size, profile {} ({})\n",
               dispatch.profile_path, dispatch.detail);
  else
    fmt::print("Dispatch: conservative default, one order for every size: {}\n", dispatch.detail);
  if (!dispatch.quarantined.empty())
    fmt::print("Quarantined (failing, retried later): {}\n", fmt::join(dispatch.quarantined, " "));
  fmt::print("\n");
  const auto drivers = framework.drivers();
  TextTable summary({"DRIVER", "KIND", "PRIORITY", "AUTO", "SELF-TEST", "ALGORITHMS"});
  for (const DriverInfo& d : drivers) {
    std::size_t passed = 0, failed = 0, untested = 0;
    std::string names;
    for (std::size_t i = 0; i < d.capabilities.size(); ++i) {
      const SelfTestResult& t = d.self_tests[i];
      (t.tested ? (t.passed ? passed : failed) : untested)++;
      if (!names.empty()) names += ' ';
      names += algorithm(d.capabilities[i].algorithm).name;
      if (t.tested && !t.passed) names += "(FAILED)";
    }
    std::string verdict = untested ? "n/a (does no cryptography)"
                                   : fmt::format("{}/{} passed", passed, passed + failed);
    summary.add({d.name, std::string(to_string(d.traits.kind)), std::to_string(d.traits.priority),
                 d.traits.automatic ? "yes" : "pinned only", verdict,
                 fmt::format("{}", d.capabilities.size())});
  }
  summary.print(stdout, {2, 5});

  for (const DriverInfo& d : drivers) {
    fmt::print("\n{}: {}\n", d.name, d.description);
    TextTable detail({"ALGORITHM", "SELF-TEST", "KEY", "IV", "MAX REQUEST", "DETAIL"}, "  ");
    bool any = false;
    for (std::size_t i = 0; i < d.capabilities.size(); ++i) {
      const Capability& c = d.capabilities[i];
      const SelfTestResult& t = d.self_tests[i];
      // Without -v only what needs attention is itemised.
      if (!options.verbose && (t.passed || !t.tested)) continue;
      any = true;
      const std::string max = c.max_request == SIZE_MAX ? "-" : std::to_string(c.max_request);
      detail.add({std::string(algorithm(c.algorithm).name), self_test_word(t), range(c.key_sizes),
                  range(c.iv_sizes), max, t.detail + restricted_operations(c)});
    }
    if (any) {
      detail.print(stdout);
    } else {
      std::string names;
      for (const Capability& c : d.capabilities) {
        if (!names.empty()) names += ", ";
        names += algorithm(c.algorithm).name;
      }
      fmt::print("  {}\n", names);
    }
  }

  if (!framework.absent().empty()) {
    fmt::print("\nAbsent drivers:\n");
    for (const AbsentDriver& a : framework.absent()) fmt::print("  {}: {}\n", a.family, a.reason);
  }
  fmt::print("\nRandom sources (cryptoaccel rng --source NAME; docs/rng.md):\n");
  TextTable sources({"SOURCE", "KIND", "FOUND", "DETAIL"}, "  ");
  for (const RandomSourceInfo& r : random_sources())
    sources.add({r.name, std::string(to_string(r.kind)), r.available ? "yes" : "no",
                 r.detail.empty() ? r.description : r.detail});
  sources.print(stdout);
  if (!framework.notes().empty()) {
    fmt::print("\nNotes:\n");
    for (const std::string& n : framework.notes()) fmt::print("  {}\n", n);
  }
  if (options.algorithms) {
    fmt::print("\n");
    print_algorithm_table();
  }
}

}  // namespace

Action add_list_command(CLI::App& app) {
  auto options = std::make_shared<ListOptions>();
  CLI::App* list = app.add_subcommand(
      "list",
      "List the drivers found on this machine: kind (hardware/software), priority,\n"
      "algorithms and self-test results, and the drivers that are absent and why.");
  list->add_flag("--json", options->json, "Print JSON (schema in docs/list.md)");
  list->add_flag("-v,--verbose", options->verbose,
                 "Itemise every algorithm of every driver with its self-test evidence");
  list->add_flag("-a,--algorithms", options->algorithms,
                 "Also print the algorithm table (names, key, IV and tag lengths)");
  list->add_flag("--kernel", options->kernel,
                 "Instead, which implementation the kernel itself uses per algorithm (IPsec,\n"
                 "dm-crypt, fscrypt), whether it is an accelerator, and what loading an\n"
                 "accelerator's module would change (docs/list.md)");
  return [options] {
    if (options->kernel) return print_kernel_view(options->json, options->verbose);
    Framework& framework = Framework::global();
    if (options->json)
      // Names from the kernel or a device are not always UTF-8: replaced
      // bytes rather than no document at all.
      fmt::print("{}\n", to_json(framework).dump(2, ' ', false,
                                                  nlohmann::json::error_handler_t::replace));
    else
      print_text(framework, *options);
    return 0;
  };
}

}  // namespace cryptoaccel::tools
