// Accelerators whose device is present but whose kernel module is not
// loaded: each device's modalias (/sys/bus/*/devices/*/modalias) matched
// against the running kernel's modules.alias, kept where the module is a
// known accelerator driver (accelerators.hpp) and /sys/module has no entry.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cryptoaccel::kernel {

struct ModuleAlias {
  std::string pattern;  // fnmatch pattern: "virtio:d00000014v*"
  std::string module;
};

// The "alias PATTERN MODULE" lines of a modules.alias text.
std::vector<ModuleAlias> parse_module_aliases(std::string_view text);

struct PresentDevice {
  std::string path;      // /sys/bus/virtio/devices/virtio0
  std::string modalias;  // virtio:d00000014v00001AF4
};

struct UnloadedModule {
  std::string module;  // as modules.alias names it, '-' read as '_'
  std::string device;  // the device's sysfs path
};

// Pure: the accelerator modules among `aliases` that match a device and are
// not in `loaded`, one entry per module and device.
std::vector<UnloadedModule> unloaded_accelerators(const std::vector<PresentDevice>& devices,
                                                  const std::vector<ModuleAlias>& aliases,
                                                  const std::vector<std::string>& loaded);

// The same on this machine: /sys/bus, /lib/modules/`uname -r`/modules.alias
// and /sys/module.
std::vector<UnloadedModule> unloaded_accelerators_here();

// What an accelerator module registers, as its source in the kernel named
// says (checked in the test bed's guest for the versions given).
struct KnownRegistration {
  std::string_view module;
  std::string_view name;    // generic name
  std::string_view driver;  // its driver name
  int priority;
  // Where the kernel's choice also depends on the device: "if ...", else empty.
  std::string_view condition;
};
std::vector<KnownRegistration> known_registrations(std::string_view module,
                                                   std::string_view kernel_release);

}  // namespace cryptoaccel::kernel
