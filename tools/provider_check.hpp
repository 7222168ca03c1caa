// The second half of `cryptoaccel calibrate --machine`: the algorithms that
// the profile just made would take off OpenSSL's own implementation in the
// provider, measured the way applications call them (OpenSSL's EVP: a
// cipher's stream of updates, an AEAD message per record, a digest or HMAC
// per message) on the provider loaded with that profile, against OpenSSL's
// default provider, in this process. An algorithm stays with OpenSSL's own
// implementation unless the provider is clearly faster at some size and not
// slower at any.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "cryptoaccel/algorithm.hpp"

namespace cryptoaccel::tools {

// The provider against the default provider: it keeps an algorithm only
// where it reaches kKeepAtLeast at every size and kGainAtLeast at one.
inline constexpr double kKeepAtLeast = 0.97;
inline constexpr double kGainAtLeast = 1.10;

struct ProviderCheckOptions {
  std::string module;        // cryptoaccel.so
  std::string profile_path;  // the profile the provider loads
  std::vector<std::size_t> sizes;
  double seconds = 0.06;  // per size and side, split over the rounds
  unsigned rounds = 3;
  std::function<void(const std::string& line)> progress;
  std::function<bool()> interrupted;
};

struct ProviderCheck {
  AlgorithmId algorithm;
  std::vector<std::pair<std::size_t, double>> ratios;  // size -> provider / default
  bool direct = false;                                 // OpenSSL's own implementation stays
};

// The module the provider is loaded from: the build tree's, next to this
// program there, else the installed one.
std::string default_provider_module();

// Throws Error when the module cannot be loaded or an algorithm fetched.
std::vector<ProviderCheck> check_provider(const std::vector<AlgorithmId>& algorithms,
                                          const ProviderCheckOptions& options);

}  // namespace cryptoaccel::tools
