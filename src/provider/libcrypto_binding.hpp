// Which libcrypto the module's calls go to. OpenSSL 3.x is libcrypto.so.3
// and 4.0 is libcrypto.so.4; a module linked to one would bring that one
// into a process that runs the other, and its calls (its own library
// context, its error queue, the default provider it forwards to) would go
// to the wrong copy. So the module links to none: every libcrypto function
// it calls is a jump through a slot (libcrypto_functions.def), filled from
// the libcrypto that loaded it (docs/provider.md, "One binary for 3.0 to 4.0").
#pragma once

#include <openssl/core.h>

#include <string>

namespace cryptoaccel::provider {

// Binds every slot to the libcrypto that holds the core functions in `in`
// (the one that is loading the module), if they are not bound to it already.
// All or nothing: returns an empty string, or what is wrong (that libcrypto
// lacks a function the module calls, it cannot be found, the module already
// serves another libcrypto in this process) and leaves the slots as they
// were. A no-op where the module is linked to libcrypto.
std::string bind_libcrypto_of_core(const OSSL_DISPATCH* in);

// A function of the libcrypto the module serves that some versions lack
// (OPENSSL_atexit is gone from 4.0), or null: looked up by name, not
// through a slot, since a slot must be filled for the module to bind.
void* optional_libcrypto_function(const char* name);

}  // namespace cryptoaccel::provider
