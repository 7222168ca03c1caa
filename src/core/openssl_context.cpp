#include "openssl_context.hpp"

#include <openssl/crypto.h>
#include <openssl/provider.h>

#include "cryptoaccel/error.hpp"

namespace cryptoaccel::detail {

OSSL_LIB_CTX* openssl_context() {
  struct Context {
    OSSL_LIB_CTX* libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER* provider = libctx ? OSSL_PROVIDER_load(libctx, "default") : nullptr;
    // Left to the process's end: providers may still be in use by then in
    // objects other statics hold.
  };
  static const Context context;
  if (context.provider == nullptr)
    throw DriverFailure("OpenSSL: no library context with the default provider");
  return context.libctx;
}

}  // namespace cryptoaccel::detail
