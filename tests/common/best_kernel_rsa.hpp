// The kernel's best "rsa" akcipher, read from /proc/crypto by the tests
// themselves (not through src/kernel/proc_crypto, which the keyring driver
// uses: the tests check the driver's reading against their own).
// Used by tests/kat (vm.kat.keyring*) and tests/vm (vm.keyring).
#pragma once

#include <cstdlib>
#include <fstream>
#include <istream>
#include <map>
#include <string>
#include <string_view>

namespace cryptoaccel::test_support {

// The driver name of the best "rsa" akcipher (highest priority, self-test
// passed, not internal) in the text of /proc/crypto: what keyctl's enc=raw
// reaches. rsa-generic with Debian's QEMU (its virtio-crypto-rsa fails the
// self-test), virtio-crypto-rsa with a QEMU that does raw RSA
// (scripts/build-qemu-gcrypt). Empty if none.
inline std::string best_kernel_rsa(std::istream& proc_crypto) {
  auto trim = [](std::string_view t) {
    const std::size_t first = t.find_first_not_of(" \t");
    if (first == std::string_view::npos) return std::string();
    return std::string(t.substr(first, t.find_last_not_of(" \t") - first + 1));
  };
  std::string line, best;
  int best_priority = -1;
  std::map<std::string, std::string> block;
  auto close_block = [&] {
    if (block["name"] == "rsa" && block["type"] == "akcipher" && block["selftest"] == "passed" &&
        block["internal"] != "yes" && !block["priority"].empty() &&
        std::atoi(block["priority"].c_str()) > best_priority) {
      best_priority = std::atoi(block["priority"].c_str());
      best = block["driver"];
    }
    block.clear();
  };
  while (std::getline(proc_crypto, line)) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) {
      close_block();
      continue;
    }
    const std::string_view text = line;
    block[trim(text.substr(0, colon))] = trim(text.substr(colon + 1));
  }
  close_block();
  return best;
}

inline std::string best_kernel_rsa() {
  std::ifstream in("/proc/crypto");
  return best_kernel_rsa(in);
}

}  // namespace cryptoaccel::test_support
