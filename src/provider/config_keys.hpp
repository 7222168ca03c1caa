// A misspelt key in the provider's openssl.cnf section ("polcy = offload")
// would otherwise be ignored without a word: OpenSSL hands a provider only
// the keys it asks for. This reads the configuration file the process
// loaded, finds the provider's section and names any key it does not know.
#pragma once

#include <openssl/core.h>

namespace cryptoaccel::provider {

// Throws InvalidArgument naming the key, the section, the file and the
// keys accepted. Finds nothing to say (and returns) when the provider was
// not loaded through a configuration file.
void check_config_keys(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in);

}  // namespace cryptoaccel::provider
