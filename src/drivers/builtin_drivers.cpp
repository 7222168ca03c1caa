// Probes each family of builtin_drivers.def and registers what it found.
#include <algorithm>

#include "../core/registry.hpp"

namespace cryptoaccel {

#define CRYPTOACCEL_DRIVER(family) DriverProbe probe_##family##_driver(std::string_view);
#include "builtin_drivers.def"
#undef CRYPTOACCEL_DRIVER

namespace detail {

void probe_builtin_drivers(Registry& registry, std::span<const std::string> excluded,
                           const std::map<std::string, std::string, std::less<>>& settings) {
  struct Family {
    const char* name;
    DriverProbeFunction probe;
  };
  static constexpr Family kFamilies[] = {
#define CRYPTOACCEL_DRIVER(family) {#family, &probe_##family##_driver},
#include "builtin_drivers.def"
#undef CRYPTOACCEL_DRIVER
  };
  for (const Family& family : kFamilies) {
    if (std::find(excluded.begin(), excluded.end(), family.name) != excluded.end()) {
      registry.add_absent(family.name, "excluded by this program");
      continue;
    }
    DriverProbe found;
    try {
      const auto setting = settings.find(std::string_view(family.name));
      found = family.probe(setting == settings.end() ? std::string_view() : setting->second);
    } catch (const std::exception& e) {
      found.absent_reason = std::string("probe failed: ") + e.what();
    }
    for (auto& note : found.notes) registry.add_note(std::string(family.name) + ": " + note);
    if (found.drivers.empty()) {
      registry.add_absent(family.name,
                          found.absent_reason.empty() ? "no instance found" : found.absent_reason);
    }
    for (auto& driver : found.drivers) registry.add(std::move(driver));
  }
}

}  // namespace detail
}  // namespace cryptoaccel
