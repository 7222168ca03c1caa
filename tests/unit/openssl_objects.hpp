// OpenSSL objects the tests hold, each freed (numbers cleared) by its owner.
#pragma once

#include <openssl/bn.h>
#include <openssl/evp.h>

#include <memory>

namespace cryptoaccel::test {

template <auto Free>
struct OpenSslFree {
  template <class T>
  void operator()(T* p) const {
    Free(p);
  }
};
using Pkey = std::unique_ptr<EVP_PKEY, OpenSslFree<EVP_PKEY_free>>;
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, OpenSslFree<EVP_PKEY_CTX_free>>;
using Bn = std::unique_ptr<BIGNUM, OpenSslFree<BN_clear_free>>;
using BnCtx = std::unique_ptr<BN_CTX, OpenSslFree<BN_CTX_free>>;

}  // namespace cryptoaccel::test
