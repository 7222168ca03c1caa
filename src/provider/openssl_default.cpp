#include "openssl_default.hpp"

#include <openssl/err.h>

#include <sstream>

#include "cryptoaccel/error.hpp"
#include "function_tables.hpp"

namespace cryptoaccel::provider {

OpenSslDefault::OpenSslDefault() : libctx_(OSSL_LIB_CTX_new()) {
  if (libctx_ == nullptr) throw DriverFailure("cryptoaccel provider: OSSL_LIB_CTX_new failed");
  default_ = OSSL_PROVIDER_load(libctx_, "default");
  if (default_ == nullptr) {
    OSSL_LIB_CTX_free(libctx_);
    throw DriverFailure("cryptoaccel provider: OpenSSL's default provider did not load");
  }
  // Where it is installed, the legacy provider too: an RSA signature over
  // MDC2 or MD4 (which the default provider's RSA fetches here) works as
  // it does without cryptoaccel. Without it they fail as they would there.
  legacy_ = OSSL_PROVIDER_try_load(libctx_, "legacy", 1);
  ERR_clear_error();
}

OpenSslDefault::~OpenSslDefault() {
  for (auto& [name, cipher] : ciphers_) EVP_CIPHER_free(cipher);
  if (legacy_ != nullptr) OSSL_PROVIDER_unload(legacy_);
  OSSL_PROVIDER_unload(default_);
  OSSL_LIB_CTX_free(libctx_);
}

const OSSL_DISPATCH* OpenSslDefault::implementation(int operation,
                                                    std::string_view name) const noexcept {
  int no_cache = 0;
  const OSSL_ALGORITHM* found = OSSL_PROVIDER_query_operation(default_, operation, &no_cache);
  for (; found != nullptr && found->algorithm_names != nullptr; ++found)
    if (names_include(found->algorithm_names, name)) return found->implementation;
  return nullptr;
}

void* OpenSslDefault::default_provider_context() const noexcept {
  return OSSL_PROVIDER_get0_provider_ctx(default_);
}

const EVP_CIPHER* OpenSslDefault::cipher(const Algorithm& a) {
  std::lock_guard lock(mutex_);
  auto found = ciphers_.find(a.openssl_name);
  if (found != ciphers_.end()) return found->second;
  EVP_CIPHER* cipher =
      EVP_CIPHER_fetch(libctx_, std::string(a.openssl_name).c_str(), "provider=default");
  if (cipher == nullptr)
    throw Unsupported("OpenSSL's default provider has no " + std::string(a.openssl_name));
  ciphers_.emplace(std::string(a.openssl_name), cipher);
  return cipher;
}

void OpenSslDefault::count(const std::string& what, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  Usage& u = usage_[what];
  ++u.requests;
  u.bytes += bytes;
}

std::string OpenSslDefault::usage_text() const {
  std::lock_guard lock(mutex_);
  std::ostringstream out;
  for (const auto& [what, u] : usage_)
    out << "  " << what << " openssl-default requests=" << u.requests << " bytes=" << u.bytes
        << " failures=0\n";
  return out.str();
}

}  // namespace cryptoaccel::provider
