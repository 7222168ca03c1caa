// The OSSL_DISPATCH function tables OpenSSL reads, one per algorithm, and
// the names each algorithm is registered under. (Not to be confused with
// core/dispatcher.hpp, which routes requests to drivers.)
#pragma once

#include <openssl/core.h>

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

#include "cryptoaccel/algorithm.hpp"

namespace cryptoaccel::provider {

// OSSL_DISPATCH stores every function as void(*)(void); the core casts it
// back to the type the function id names.
template <typename Fn>
OSSL_DISPATCH entry(int id, Fn* fn) {
  return {id, reinterpret_cast<void (*)(void)>(fn)};
}
inline constexpr OSSL_DISPATCH kEnd = {0, nullptr};

// One table per algorithm: `Table<Id>::functions` is instantiated for every
// AlgorithmId and looked up at run time.
template <template <AlgorithmId> class Table, std::size_t... I>
std::array<const OSSL_DISPATCH*, kAlgorithmCount> tables_for(std::index_sequence<I...>) {
  return {Table<static_cast<AlgorithmId>(I)>::functions...};
}
template <template <AlgorithmId> class Table>
const OSSL_DISPATCH* table_of(AlgorithmId id) {
  static const auto tables = tables_for<Table>(std::make_index_sequence<kAlgorithmCount>());
  return tables[index_of(id)];
}

// The names under which OpenSSL's default provider offers `id`
// ("AES-128-GCM:id-aes128-GCM:2.16.840.1.101.3.4.1.6"), so that every fetch
// by name or OID finds ours too.
const char* openssl_names(AlgorithmId id) noexcept;

// Whether `names`, colon-separated as in OSSL_ALGORITHM, holds `name`
// (OpenSSL's names ignore case).
bool names_include(std::string_view names, std::string_view name) noexcept;

}  // namespace cryptoaccel::provider
