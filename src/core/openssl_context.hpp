// The library's own OpenSSL library context, with only the default
// provider: what it reads and encodes keys with. The application's
// configuration (a default_properties preferring the cryptoaccel provider)
// never reaches it, so the library never calls back into itself.
#pragma once

#include <openssl/types.h>

namespace cryptoaccel::detail {

// Made on first use and kept for the process. Throws DriverFailure when
// OpenSSL cannot make it.
OSSL_LIB_CTX* openssl_context();

}  // namespace cryptoaccel::detail
