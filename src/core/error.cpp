#include "cryptoaccel/error.hpp"

namespace cryptoaccel {

std::string_view to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::ok:
      return "ok";
    case ErrorCode::invalid_key_length:
      return "invalid key length";
    case ErrorCode::invalid_key:
      return "invalid key";
    case ErrorCode::invalid_iv_length:
      return "invalid IV length";
    case ErrorCode::invalid_tag_length:
      return "invalid tag length";
    case ErrorCode::invalid_length:
      return "invalid length";
    case ErrorCode::authentication_failed:
      return "authentication failed";
    case ErrorCode::unsupported:
      return "unsupported";
    case ErrorCode::driver_failure:
      return "driver failure";
    case ErrorCode::not_found:
      return "not found";
    case ErrorCode::invalid_argument:
      return "invalid argument";
    case ErrorCode::decryption_failed:
      return "decryption failed";
  }
  return "unknown error";
}

void throw_error(ErrorCode code, const std::string& message) {
  switch (code) {
    case ErrorCode::invalid_key_length:
      throw InvalidKeyLength(message);
    case ErrorCode::invalid_key:
      throw InvalidKey(message);
    case ErrorCode::invalid_iv_length:
      throw InvalidIvLength(message);
    case ErrorCode::invalid_tag_length:
      throw InvalidTagLength(message);
    case ErrorCode::invalid_length:
      throw InvalidLength(message);
    case ErrorCode::authentication_failed:
      throw AuthenticationFailed(message);
    case ErrorCode::unsupported:
      throw Unsupported(message);
    case ErrorCode::not_found:
      throw NotFound(message);
    case ErrorCode::invalid_argument:
      throw InvalidArgument(message);
    case ErrorCode::decryption_failed:
      throw DecryptionFailed(message);
    case ErrorCode::driver_failure:
    case ErrorCode::ok:
      break;
  }
  throw DriverFailure(message);
}

}  // namespace cryptoaccel
