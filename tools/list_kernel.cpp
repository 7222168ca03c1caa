#include "list_kernel.hpp"

#include <fmt/core.h>
#include <sys/utsname.h>

#include <algorithm>
#include <string_view>
#include <nlohmann/json.hpp>

#include "cryptoaccel/cryptoaccel.hpp"
#include "text_table.hpp"

namespace cryptoaccel::tools {
namespace {

nlohmann::json to_json(const KernelImplementationInfo& i) {
  nlohmann::json j{{"driver", i.driver},
                   {"module", i.module},
                   {"priority", i.priority},
                   {"selftest_passed", i.selftest_passed},
                   {"hardware", i.hardware}};
  if (!i.hardware_part.empty()) j["hardware_part"] = i.hardware_part;
  return j;
}

nlohmann::json to_json(const KernelCryptoView& v) {
  nlohmann::json algorithms = nlohmann::json::array();
  for (const KernelAlgorithmChoice& c : v.algorithms) {
    nlohmann::json others = nlohmann::json::array();
    for (const KernelImplementationInfo& o : c.others) others.push_back(to_json(o));
    algorithms.push_back({{"name", c.name},
                          {"type", c.type},
                          {"used_by", c.used_by},
                          {"chosen", c.chosen_known ? to_json(c.chosen) : nlohmann::json()},
                          {"others", others}});
  }
  nlohmann::json unloaded = nlohmann::json::array();
  for (const UnloadedAccelerator& u : v.unloaded)
    unloaded.push_back({{"module", u.module}, {"device", u.device}, {"would_change", u.would_change}});
  return {{"readable", v.readable},
          {"instantiated", v.instantiated},
          {"note", v.instantiate_note},
          {"algorithms", algorithms},
          {"unloaded_accelerators", unloaded}};
}

// Text from the kernel as the terminal should see it: a control byte (an
// escape sequence in a crafted module name) as "?".
std::string printable(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

std::string kind_text(const KernelImplementationInfo& i) {
  if (!i.hardware) return "software";
  return i.hardware_part.empty() ? "hardware" : "hardware: " + printable(i.hardware_part);
}

bool accelerator_among(const KernelAlgorithmChoice& c) {
  return (c.chosen_known && c.chosen.hardware) ||
         std::any_of(c.others.begin(), c.others.end(),
                     [](const KernelImplementationInfo& o) { return o.hardware; });
}

}  // namespace

int print_kernel_view(bool json, bool verbose) {
  const KernelCryptoView view = kernel_crypto_view();
  if (json) {
    // /proc/crypto and module names are not always UTF-8: replaced bytes
    // rather than no document at all.
    fmt::print("{}\n",
               to_json(view).dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    return view.readable ? 0 : 1;
  }
  if (!view.readable) {
    fmt::print(stderr, "cryptoaccel list --kernel: /proc/crypto could not be read\n");
    return 1;
  }
  utsname host{};
  uname(&host);
  fmt::print(
      "The kernel's own crypto (Linux {}): IPsec (XFRM), dm-crypt and fscrypt run in the kernel\n"
      "and never reach cryptoaccel; each gets the implementation of highest priority that\n"
      "passed its self-test.{}\n\n",
      host.release,
      view.instantiated ? " Template instances were asked for through AF_ALG first."
                        : "\n" + view.instantiate_note + ".");
  // The kernel's users' names first, in their order, then every other
  // name an accelerator offers (all names with -v).
  std::vector<const KernelAlgorithmChoice*> rows;
  for (const KernelAlgorithmChoice& c : view.algorithms)
    if (!c.used_by.empty()) rows.push_back(&c);
  for (const KernelAlgorithmChoice& c : view.algorithms)
    if (c.used_by.empty() && (verbose || accelerator_among(c))) rows.push_back(&c);
  TextTable table({"ALGORITHM", "USED BY", "IMPLEMENTATION", "MODULE", "PRIORITY", "KIND"});
  for (const KernelAlgorithmChoice* c : rows) {
    if (c->chosen_known)
      table.add({printable(c->name), c->used_by, printable(c->chosen.driver),
                 printable(c->chosen.module), std::to_string(c->chosen.priority),
                 kind_text(c->chosen)});
    else
      table.add({printable(c->name), c->used_by, "(none passed its self-test)", "", "", ""});
  }
  table.print(stdout, {4});

  bool heading = false;
  for (const KernelAlgorithmChoice* c : rows) {
    for (const KernelImplementationInfo& o : c->others) {
      if (!verbose && !o.hardware) continue;
      if (!heading) {
        fmt::print("\nAlso registered, not chosen{}:\n",
                   verbose ? "" : " (accelerators only; -v for all)");
        heading = true;
      }
      fmt::print("  {}: {} ({}, priority {}{}{})\n", printable(c->name), printable(o.driver),
                 printable(o.module), o.priority,
                 o.hardware ? ", " + kind_text(o) : "",
                 o.selftest_passed ? "" : ", self-test not passed");
    }
  }
  if (!view.unloaded.empty()) {
    fmt::print("\nAccelerator devices present whose module is not loaded:\n");
    for (const UnloadedAccelerator& u : view.unloaded) {
      fmt::print("  {} ({}): modprobe {}\n", printable(u.module), printable(u.device),
                 printable(u.module));
      if (u.would_change.empty())
        fmt::print("    what it registers on this kernel is not known here: load it and run "
                   "`cryptoaccel list --kernel` again\n");
      for (const std::string& change : u.would_change) fmt::print("    {}\n", printable(change));
    }
  }
  return 0;
}

}  // namespace cryptoaccel::tools
