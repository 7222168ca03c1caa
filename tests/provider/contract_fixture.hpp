// The fixture of the EVP contract tests: the same calls on a fresh context
// from OpenSSL's default provider and from cryptoaccel, and what each
// returned and wrote, to compare.
#pragma once

#include <openssl/err.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "evp_fixture.hpp"

// In the anonymous namespace, as evp_fixture.hpp's Evp it derives from.
namespace {

// What a sequence of calls returned and wrote.
struct Trace {
  std::vector<long> results;
  Bytes bytes;
  void add(long r) { results.push_back(r); }
  void add(const unsigned char* p, std::size_t n) { bytes.insert(bytes.end(), p, p + n); }
  bool operator==(const Trace&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Trace& t) {
  for (long r : t.results) os << r << ' ';
  return os << "| " << t.bytes.size() << " bytes";
}

// Where two traces' bytes part first, for the failure message.
std::string where_bytes_differ(const Trace& a, const Trace& b) {
  const std::size_t n = std::min(a.bytes.size(), b.bytes.size());
  for (std::size_t i = 0; i < n; ++i)
    if (a.bytes[i] != b.bytes[i]) {
      std::string hex;
      char two[3];
      for (std::size_t j = i; j < std::min(n, i + 16); ++j) {
        std::snprintf(two, sizeof two, "%02x", a.bytes[j]);
        hex += two;
      }
      hex += " / ";
      for (std::size_t j = i; j < std::min(n, i + 16); ++j) {
        std::snprintf(two, sizeof two, "%02x", b.bytes[j]);
        hex += two;
      }
      return " (bytes differ from offset " + std::to_string(i) + ": " + hex + ")";
    }
  return a.bytes.size() == b.bytes.size() ? "" : " (byte counts differ)";
}

using Steps = std::function<void(EVP_CIPHER_CTX*, EVP_CIPHER*, Trace&)>;

class Contract : public Evp {
 protected:
  // Runs `steps` on a fresh context of `name` from each side.
  static std::pair<Trace, Trace> both(const char* name, const Steps& steps) {
    CipherPtr mine(ours(name), &EVP_CIPHER_free), ref(theirs(name), &EVP_CIPHER_free);
    Trace a, b;
    auto ca = new_ctx(), cb = new_ctx();
    steps(ca.get(), mine.get(), a);
    ERR_clear_error();
    steps(cb.get(), ref.get(), b);
    ERR_clear_error();
    return {a, b};
  }
};

}  // namespace
