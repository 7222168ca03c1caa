// OpenSSL's error queue as the provider reaches it: the functions
// core_new_error, core_set_error_debug and core_vset_error that OpenSSL's core
// (libcrypto) hands the provider at load.
#pragma once

#include <openssl/core.h>
#include <openssl/core_dispatch.h>

#include <cstdarg>

namespace cryptoaccel::provider {

class OpenSslErrorQueue {
 public:
  OpenSslErrorQueue(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in) noexcept;
  void raise(int reason, const char* file, int line, const char* func, const char* format,
             va_list args) const noexcept;

 private:
  const OSSL_CORE_HANDLE* handle_;
  OSSL_FUNC_core_new_error_fn* new_error_ = nullptr;
  OSSL_FUNC_core_set_error_debug_fn* set_error_debug_ = nullptr;
  OSSL_FUNC_core_vset_error_fn* vset_error_ = nullptr;
};

// The function with `id` in the core's table, or null.
template <typename Fn>
Fn* core_function(const OSSL_DISPATCH* in, int id) noexcept {
  for (; in != nullptr && in->function_id != 0; ++in)
    if (in->function_id == id) return reinterpret_cast<Fn*>(in->function);
  return nullptr;
}

}  // namespace cryptoaccel::provider
