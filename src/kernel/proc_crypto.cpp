#include "proc_crypto.hpp"

#include <charconv>
#include <fstream>

namespace cryptoaccel::kernel {
namespace {

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return std::string(s.substr(first, last - first + 1));
}

unsigned number(const std::string& text) {
  unsigned value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// The kernel prints a priority with %d: negative ones are legal.
int signed_number(const std::string& text) {
  int value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

void assign(KernelImplementation& k, const std::string& key, const std::string& value) {
  if (key == "name")
    k.name = value;
  else if (key == "driver")
    k.driver = value;
  else if (key == "module")
    k.module = value;
  else if (key == "type")
    k.type = value;
  else if (key == "priority")
    k.priority = signed_number(value);
  else if (key == "selftest")
    k.selftest_passed = value == "passed";
  else if (key == "internal")
    k.internal = value == "yes";
  else if (key == "async")
    k.async = value == "yes";
  else if (key == "min keysize")
    k.min_keysize = number(value);
  else if (key == "max keysize")
    k.max_keysize = number(value);
  else if (key == "ivsize")
    k.ivsize = number(value);
  else if (key == "maxauthsize")
    k.maxauthsize = number(value);
  else if (key == "digestsize")
    k.digestsize = number(value);
  else if (key == "blocksize")
    k.blocksize = number(value);
}

}  // namespace

std::vector<KernelImplementation> parse_proc_crypto(std::istream& in) {
  std::vector<KernelImplementation> out;
  KernelImplementation current;
  bool any = false;
  std::string line;
  const auto finish = [&] {
    if (any && !current.driver.empty()) out.push_back(std::move(current));
    current = {};
    any = false;
  };
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (trim(line).empty() || colon == std::string::npos) {
      finish();
      continue;
    }
    assign(current, trim(std::string_view(line).substr(0, colon)),
           trim(std::string_view(line).substr(colon + 1)));
    any = true;
  }
  finish();
  return out;
}

std::vector<KernelImplementation> read_proc_crypto() {
  std::ifstream in("/proc/crypto");
  if (!in) return {};
  return parse_proc_crypto(in);
}

}  // namespace cryptoaccel::kernel
