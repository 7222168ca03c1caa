// SP 800-38A F.2.1 (CBC-AES128.Encrypt), its first two blocks: the known
// answer the /dev/crypto protocol tests check in both of the ABI's layouts.
#pragma once

#include "test_util.hpp"

namespace cryptoaccel::test {

struct Sp80038aCbc {
  static inline const ByteVector key = hex("2b7e151628aed2a6abf7158809cf4f3c");
  static inline const ByteVector iv = hex("000102030405060708090a0b0c0d0e0f");
  static inline const ByteVector plain =
      hex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51");
  static inline const ByteVector cipher =
      hex("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2");
};

}  // namespace cryptoaccel::test
