#include <openssl/crypto.h>

#include "cryptoaccel/session.hpp"

namespace cryptoaccel {

void secure_wipe(void* data, std::size_t size) noexcept {
  if (data != nullptr && size != 0) OPENSSL_cleanse(data, size);
}

bool constant_time_equal(Bytes a, Bytes b) noexcept {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace cryptoaccel
