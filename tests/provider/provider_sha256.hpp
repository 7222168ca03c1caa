// SHA-256 of "abc" through cryptoaccel in a library context, checked
// against FIPS 180-2, appendix B.1: the tests' proof that a loaded provider
// serves. The libcrypto functions default to the process's own; a test
// that holds a second libcrypto passes that one's.
#pragma once

#include <openssl/evp.h>

#include <array>

namespace cryptoaccel::test {

template <typename Fetch = decltype(&EVP_MD_fetch), typename Digest = decltype(&EVP_Digest),
          typename Free = decltype(&EVP_MD_free)>
bool provider_sha256_right(OSSL_LIB_CTX* ctx, int times = 1, Fetch fetch = &EVP_MD_fetch,
                           Digest digest = &EVP_Digest, Free free_md = &EVP_MD_free) {
  static constexpr std::array<unsigned char, 32> kExpected = {
      0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
      0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
      0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
  EVP_MD* md = fetch(ctx, "SHA256", "provider=cryptoaccel");
  if (md == nullptr) return false;
  bool ok = true;
  for (int i = 0; i < times && ok; ++i) {
    std::array<unsigned char, 32> out{};
    unsigned int length = 0;
    ok =
        digest("abc", 3, out.data(), &length, md, nullptr) == 1 && length == 32 && out == kExpected;
  }
  free_md(md);
  return ok;
}

}  // namespace cryptoaccel::test
