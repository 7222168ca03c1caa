// Errors at the OpenSSL boundary: no exception crosses into OpenSSL. Every
// dispatch entry runs its body through guarded(), which turns an exception
// into an entry on OpenSSL's error queue with a reason a person can read.
#pragma once

#include <openssl/core.h>

#include <new>
#include <source_location>

#include "cryptoaccel/error.hpp"
#include "provider_context.hpp"

namespace cryptoaccel::provider {

// Reason codes: the library's ErrorCode values, then the provider's own.
enum Reason : int {
  kReasonBadParameter = 100,  // an OSSL_PARAM with a wrong type or value
  kReasonNotInitialised,      // an operation before the key (or IV) was set
  kReasonOutputTooSmall,      // OpenSSL's output buffer cannot take the result
  kReasonOutOfMemory,
  kReasonInternal,
  kReasonBadPadding,
  kReasonWrongFinalBlock,
  kReasonOperationFailed,  // a cipher call OpenSSL's own implementation also refuses
};

// The reason strings OpenSSL shows (OSSL_FUNC_PROVIDER_GET_REASON_STRINGS).
const OSSL_ITEM* reason_strings() noexcept;

// Raises `reason` with a printf-style message; `where` names the caller.
[[gnu::format(printf, 4, 5)]] void raise_reason(const OpenSslErrorQueue* errors, int reason,
                                                std::source_location where, const char* format,
                                                ...) noexcept;
inline const OpenSslErrorQueue* errors_of(const ProviderContext* pc) noexcept {
  return pc != nullptr ? &pc->errors() : nullptr;
}

// Raises the exception being handled (call inside a catch block).
void raise_exception(const OpenSslErrorQueue* errors, std::source_location where) noexcept;

// Runs `body`; on an exception raises it and returns `failure`. Called at
// every entry point OpenSSL calls.
template <typename Body, typename Result = decltype(std::declval<Body>()())>
Result guarded(const ProviderContext* pc, Result failure, Body&& body,
               std::source_location where = std::source_location::current()) noexcept {
  try {
    return body();
  } catch (...) {
    raise_exception(errors_of(pc), where);
    return failure;
  }
}

#define CRYPTOACCEL_RAISE(pc, reason, ...)                                              \
  ::cryptoaccel::provider::raise_reason(::cryptoaccel::provider::errors_of(pc), reason, \
                                        std::source_location::current(), __VA_ARGS__)

}  // namespace cryptoaccel::provider
