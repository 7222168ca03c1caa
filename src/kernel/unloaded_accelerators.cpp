#include "unloaded_accelerators.hpp"

#include <fnmatch.h>
#include <sys/utsname.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "accelerators.hpp"

namespace cryptoaccel::kernel {
namespace {

std::string underscores(std::string name) {
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

std::string read_first_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// A directory's entries; none, and `error` set, where it cannot be read
// (an unprivileged user, a folder that vanished while it was read).
std::vector<std::filesystem::path> entries_of(const std::filesystem::path& directory,
                                              std::error_code* error = nullptr) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  std::filesystem::directory_iterator it(directory, ec), end;
  for (; !ec && it != end; it.increment(ec)) out.push_back(it->path());
  if (ec) {
    out.clear();
    if (error != nullptr) *error = ec;
  }
  return out;
}

// What Linux 6.1's drivers/crypto/virtio registers (virtio_crypto_skcipher_algs.c,
// virtio_crypto_akcipher_algs.c), as /proc/crypto shows it in the test
// bed's guest (Debian 12's kernel). Older kernels register fewer: cbc(aes)
// alone before 5.18's akcipher.
constexpr std::array<KnownRegistration, 3> kVirtioCrypto61{{
    {"virtio_crypto", "cbc(aes)", "virtio_crypto_aes_cbc", 150, ""},
    {"virtio_crypto", "pkcs1pad(rsa)", "virtio-pkcs1-rsa", 150, ""},
    // QEMU's builtin backend has no raw RSA: the kernel's self-test fails.
    {"virtio_crypto", "rsa", "virtio-crypto-rsa", 150,
     "if the device does raw RSA (the kernel's self-test then passes)"},
}};

// "6.1.0-57-amd64" -> 601.
int version_number(std::string_view release) {
  int major = 0, minor = 0;
  const char* p = release.data();
  const char* end = release.data() + release.size();
  auto r = std::from_chars(p, end, major);
  if (r.ec != std::errc() || r.ptr == end || *r.ptr != '.') return 0;
  std::from_chars(r.ptr + 1, end, minor);
  return major * 100 + minor;
}

}  // namespace

std::vector<ModuleAlias> parse_module_aliases(std::string_view text) {
  std::vector<ModuleAlias> out;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string word, pattern, module;
    if (fields >> word >> pattern >> module && word == "alias")
      out.push_back({std::move(pattern), std::move(module)});
  }
  return out;
}

std::vector<UnloadedModule> unloaded_accelerators(const std::vector<PresentDevice>& devices,
                                                  const std::vector<ModuleAlias>& aliases,
                                                  const std::vector<std::string>& loaded) {
  std::vector<UnloadedModule> out;
  const std::set<std::string> is_loaded(loaded.begin(), loaded.end());
  std::set<std::pair<std::string, std::string>> seen;
  for (const ModuleAlias& alias : aliases) {
    const std::string module = underscores(alias.module);
    if (!is_kernel_accelerator(module) || is_loaded.count(module) != 0) continue;
    for (const PresentDevice& device : devices) {
      if (fnmatch(alias.pattern.c_str(), device.modalias.c_str(), 0) != 0) continue;
      if (seen.emplace(module, device.path).second) out.push_back({module, device.path});
    }
  }
  return out;
}

std::vector<UnloadedModule> unloaded_accelerators_here() {
  namespace fs = std::filesystem;
  utsname u{};
  if (uname(&u) != 0) return {};
  std::ifstream in(fs::path("/lib/modules") / u.release / "modules.alias");
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  const std::vector<ModuleAlias> aliases = parse_module_aliases(text.str());

  std::vector<PresentDevice> devices;
  for (const fs::path& bus : entries_of("/sys/bus")) {
    for (const fs::path& device : entries_of(bus / "devices")) {
      const std::string modalias = read_first_line(device / "modalias");
      if (!modalias.empty()) devices.push_back({device.string(), modalias});
    }
  }
  // Without the list of loaded modules every match would look unloaded.
  std::error_code ec;
  if (!fs::is_directory("/sys/module", ec)) return {};
  std::vector<std::string> loaded;
  for (const fs::path& module : entries_of("/sys/module", &ec))
    loaded.push_back(module.filename().string());
  if (ec) return {};
  return unloaded_accelerators(devices, aliases, loaded);
}

std::vector<KnownRegistration> known_registrations(std::string_view module,
                                                   std::string_view kernel_release) {
  if (module == "virtio_crypto" && version_number(kernel_release) >= 601)
    return {kVirtioCrypto61.begin(), kVirtioCrypto61.end()};
  return {};
}

}  // namespace cryptoaccel::kernel
