// Small helpers shared by the unit tests.
#pragma once

#include <openssl/rand.h>

#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "core/hex.hpp"

namespace cryptoaccel::test {

using ByteVector = std::vector<std::uint8_t>;

inline ByteVector hex(std::string_view text) {
  auto bytes = detail::hex_decode(text);
  if (!bytes) throw std::invalid_argument("bad hex in test");
  return *bytes;
}

inline ByteVector random_bytes(std::size_t n) {
  ByteVector out(n);
  if (n != 0 && RAND_bytes(out.data(), static_cast<int>(n)) != 1)
    throw std::runtime_error("RAND_bytes failed");
  return out;
}

inline bool all_zero(const ByteVector& v) {
  for (auto b : v)
    if (b != 0) return false;
  return true;
}

}  // namespace cryptoaccel::test
