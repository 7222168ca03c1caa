// The `cryptoaccel-keyring:` store loader. A program that opens a key by
// URI (`openssl s_server -key cryptoaccel-keyring:/etc/ssl/private/k.pem`,
// anything that calls OSSL_STORE_open) has the file read and decoded here,
// in the provider's own library context, the private key moved into the
// kernel keyring, and is handed a reference to our key object: OpenSSL's
// decoders never run in the program's context, so no copy of the private
// numbers is left in its key objects (which is what key_storage = keyring
// cannot avoid for keys the program decodes itself).
#pragma once

#include <openssl/core_dispatch.h>

#include <cstddef>

namespace cryptoaccel::provider {

struct RsaKeyObject;

// The URI scheme, and the store's name in OpenSSL's algorithm table.
inline constexpr const char* kKeyringStoreScheme = "cryptoaccel-keyring";

const OSSL_DISPATCH* keyring_store_functions() noexcept;

// For the key management's load: the key object a reference this store
// passed names, now owned by the caller, or null for a reference that is not
// one of ours (or was already taken).
RsaKeyObject* take_stored_key(const void* reference, std::size_t reference_size) noexcept;

}  // namespace cryptoaccel::provider
