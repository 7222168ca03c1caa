// One provider instance: what OpenSSL's core handed us, the configuration
// read from our openssl.cnf section, and the Framework that serves every
// request of this instance (its drivers, dispatcher and usage counters).
#pragma once

#include <openssl/core.h>
#include <openssl/core_dispatch.h>

#include <array>
#include <cstdarg>
#include <mutex>
#include <string>
#include <vector>

#include "core_errors.hpp"
#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel::provider {

// Settings from the provider's section of openssl.cnf (keys `policy`,
// `driver`, `stats`); see docs/provider.md.
struct ProviderConfig {
  Policy policy = Policy::fastest;
  std::vector<std::string> drivers;  // pinned drivers, in order of preference
  bool stats = false;                // print usage at teardown
};

class ProviderContext {
 public:
  // Reads the configuration and builds the framework. Throws Error (bad
  // configuration, unknown driver) or std::bad_alloc.
  ProviderContext(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in);
  ~ProviderContext();
  ProviderContext(const ProviderContext&) = delete;
  ProviderContext& operator=(const ProviderContext&) = delete;

  Framework& framework() noexcept { return framework_; }
  const ProviderConfig& config() const noexcept { return config_; }

  // The options of every session of `id`: our framework, and the pinned
  // driver when one of the configured drivers offers the algorithm.
  const SessionOptions& options(AlgorithmId id) const noexcept { return options_[index_of(id)]; }
  // The same without a pin: where a pinned driver refuses a key, the
  // session falls back to the dispatcher (which includes `soft`).
  const SessionOptions& unpinned() const noexcept { return unpinned_; }

  // Whether some driver of this instance can serve `id`: only those are
  // advertised to OpenSSL.
  bool offers(AlgorithmId id) const noexcept { return offered_[index_of(id)]; }

  // What query_operation answers, per operation (filled by provider.cpp).
  std::vector<OSSL_ALGORITHM> ciphers, digests, macs;

  const CoreErrors& errors() const noexcept { return errors_; }

  // "ALGORITHM DRIVER REQUESTS BYTES" lines, one per pair that served a
  // request (Framework::usage()).
  std::string usage_text() const;
  // Keeps the text alive for a UTF8_PTR parameter.
  const char* usage_text_for_param();

 private:
  CoreErrors errors_;
  ProviderConfig config_;
  Framework framework_;
  std::array<SessionOptions, kAlgorithmCount> options_;
  SessionOptions unpinned_;
  std::array<bool, kAlgorithmCount> offered_{};
  std::mutex param_mutex_;
  std::string param_text_;
};

// Reads the configuration through core_get_params. Throws InvalidArgument
// on a value it cannot use.
ProviderConfig read_config(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in);

}  // namespace cryptoaccel::provider
