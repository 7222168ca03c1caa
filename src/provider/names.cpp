// The names each algorithm is registered under (OSSL_ALGORITHM's
// algorithm_names): OpenSSL's name, its aliases and the OID, all from the
// algorithm's row in cryptoaccel/algorithms.def.
#include <array>
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

}  // namespace cryptoaccel::provider
