// The names each algorithm is registered under (OSSL_ALGORITHM's
// algorithm_names): OpenSSL's name, its aliases and the OID, all from the
// algorithm's row in cryptoaccel/algorithms.def.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "function_tables.hpp"

namespace cryptoaccel::provider {
namespace {

std::string joined_names(const Algorithm& a) {
  // HMACs are one EVP_MAC ("HMAC") with a digest parameter.
  if (a.kind == AlgorithmKind::mac) return "HMAC";
  std::string names(a.openssl_name);
  for (std::string_view more : {a.openssl_aliases, a.oid})
    if (!more.empty()) names.append(":").append(more);
  return names;
}

}  // namespace

const char* openssl_names(AlgorithmId id) noexcept {
  // Built once; OpenSSL keeps the pointers for the provider's lifetime.
  static const auto names = [] {
    std::array<std::string, kAlgorithmCount> all;
    for (const Algorithm& a : algorithms()) all[index_of(a.id)] = joined_names(a);
    return all;
  }();
  return names[index_of(id)].c_str();
}

bool names_include(std::string_view names, std::string_view name) noexcept {
  while (!names.empty()) {
    const std::size_t colon = names.find(':');
    const std::string_view one = names.substr(0, colon);
    if (one.size() == name.size() &&
        std::equal(one.begin(), one.end(), name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) ==
                 std::tolower(static_cast<unsigned char>(b));
        }))
      return true;
    if (colon == std::string_view::npos) break;
    names.remove_prefix(colon + 1);
  }
  return false;
}

}  // namespace cryptoaccel::provider
