// One exception hierarchy for the C++ API. Every error carries an ErrorCode so
// that C boundaries (the provider, the /dev/crypto server) can translate it,
// and so that requests in a batch can carry their own status without throwing.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cryptoaccel {

enum class ErrorCode : std::uint8_t {
  ok = 0,
  invalid_key_length,
  invalid_key,  // right length, unusable value (XTS with equal halves)
  invalid_iv_length,
  invalid_tag_length,
  invalid_length,  // input or output length the algorithm cannot take
  authentication_failed,
  unsupported,
  driver_failure,
  not_found,
  invalid_argument,
  // RSA decryption of a ciphertext whose padding is wrong: one code for
  // every such ciphertext, so that none tells a caller more than another.
  decryption_failed,
};

// A short lower-case description ("authentication failed").
std::string_view to_string(ErrorCode code) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

#define CRYPTOACCEL_DECLARE_ERROR(Name, Code)                                      \
  class Name : public Error {                                                      \
   public:                                                                         \
    explicit Name(const std::string& message) : Error(ErrorCode::Code, message) {} \
  }

CRYPTOACCEL_DECLARE_ERROR(InvalidKeyLength, invalid_key_length);
CRYPTOACCEL_DECLARE_ERROR(InvalidKey, invalid_key);
CRYPTOACCEL_DECLARE_ERROR(InvalidIvLength, invalid_iv_length);
CRYPTOACCEL_DECLARE_ERROR(InvalidTagLength, invalid_tag_length);
CRYPTOACCEL_DECLARE_ERROR(InvalidLength, invalid_length);
CRYPTOACCEL_DECLARE_ERROR(AuthenticationFailed, authentication_failed);
CRYPTOACCEL_DECLARE_ERROR(Unsupported, unsupported);
CRYPTOACCEL_DECLARE_ERROR(DriverFailure, driver_failure);
CRYPTOACCEL_DECLARE_ERROR(NotFound, not_found);
CRYPTOACCEL_DECLARE_ERROR(InvalidArgument, invalid_argument);
CRYPTOACCEL_DECLARE_ERROR(DecryptionFailed, decryption_failed);

#undef CRYPTOACCEL_DECLARE_ERROR

// Throws the subclass of Error that matches `code`. `code` must not be ok.
[[noreturn]] void throw_error(ErrorCode code, const std::string& message);

}  // namespace cryptoaccel
