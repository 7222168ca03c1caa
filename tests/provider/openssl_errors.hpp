// The provider tests' view of OpenSSL's error queue: drained into one line
// per error, with the provider's detail text, for assertion messages and for
// checking that a failure gave its reason.
#pragma once

#include <openssl/err.h>

#include <string>

namespace cryptoaccel::test {

inline std::string openssl_errors() {
  std::string all;
  char line[512];
  const char* data = nullptr;
  int flags = 0;
  while (unsigned long e = ERR_get_error_all(nullptr, nullptr, nullptr, &data, &flags)) {
    ERR_error_string_n(e, line, sizeof line);
    all += line;
    if (data != nullptr && (flags & ERR_TXT_STRING) != 0) all += std::string(": ") + data;
    all += '\n';
  }
  return all;
}

}  // namespace cryptoaccel::test
