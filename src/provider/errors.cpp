#include "errors.hpp"

#include <cstdio>
#include <string>

namespace cryptoaccel::provider {
namespace {

int reason_of(ErrorCode code) {
  return static_cast<int>(code);
}

void vraise(const OpenSslErrorQueue* errors, int reason, std::source_location where,
            const char* format, va_list args) noexcept {
  if (errors != nullptr)
    errors->raise(reason, where.file_name(), static_cast<int>(where.line()), where.function_name(),
                  format, args);
}

}  // namespace

const OSSL_ITEM* reason_strings() noexcept {
  // OSSL_ITEM holds a non-const char*: OpenSSL never writes through it.
  static const OSSL_ITEM kStrings[] = {
      {static_cast<unsigned>(ErrorCode::invalid_key_length),
       const_cast<char*>("invalid key length")},
      {static_cast<unsigned>(ErrorCode::invalid_key), const_cast<char*>("invalid key")},
      {static_cast<unsigned>(ErrorCode::invalid_iv_length), const_cast<char*>("invalid IV length")},
      {static_cast<unsigned>(ErrorCode::invalid_tag_length),
       const_cast<char*>("invalid tag length")},
      {static_cast<unsigned>(ErrorCode::invalid_length), const_cast<char*>("invalid data length")},
      {static_cast<unsigned>(ErrorCode::authentication_failed),
       const_cast<char*>("authentication failed")},
      {static_cast<unsigned>(ErrorCode::unsupported), const_cast<char*>("unsupported")},
      {static_cast<unsigned>(ErrorCode::driver_failure), const_cast<char*>("driver failure")},
      {static_cast<unsigned>(ErrorCode::not_found), const_cast<char*>("not found")},
      {static_cast<unsigned>(ErrorCode::invalid_argument), const_cast<char*>("invalid argument")},
      {kReasonBadParameter, const_cast<char*>("bad parameter")},
      {kReasonNotInitialised, const_cast<char*>("not initialised")},
      {kReasonOutputTooSmall, const_cast<char*>("output buffer too small")},
      {kReasonOutOfMemory, const_cast<char*>("out of memory")},
      {kReasonInternal, const_cast<char*>("internal error")},
      {kReasonBadPadding, const_cast<char*>("bad decrypt (padding)")},
      {kReasonWrongFinalBlock, const_cast<char*>("data not a multiple of the block length")},
      {kReasonOperationFailed, const_cast<char*>("cipher operation failed")},
      {0, nullptr}};
  return kStrings;
}

void raise_reason(const OpenSslErrorQueue* errors, int reason, std::source_location where,
                  const char* format, ...) noexcept {
  va_list args;
  va_start(args, format);
  vraise(errors, reason, where, format, args);
  va_end(args);
}

void raise_exception(const OpenSslErrorQueue* errors, std::source_location where) noexcept {
  try {
    throw;
  } catch (const Error& e) {
    raise_reason(errors, reason_of(e.code()), where, "cryptoaccel: %s", e.what());
  } catch (const std::bad_alloc&) {
    raise_reason(errors, kReasonOutOfMemory, where, "cryptoaccel: out of memory");
  } catch (const std::exception& e) {
    raise_reason(errors, kReasonInternal, where, "cryptoaccel: %s", e.what());
  } catch (...) {
    raise_reason(errors, kReasonInternal, where, "cryptoaccel: unknown exception");
  }
}

}  // namespace cryptoaccel::provider
