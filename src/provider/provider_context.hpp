// One provider instance: what OpenSSL's core handed us, the configuration
// read from our openssl.cnf section, and the Framework that serves every
// request of this instance (its drivers, dispatcher and usage counters).
#pragma once

#include <openssl/core.h>
#include <openssl/core_dispatch.h>

#include <array>
#include <cstdarg>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "async_workers.hpp"
#include "cryptoaccel/cryptoaccel.hpp"
#include "forwarded.hpp"
#include "openssl_default.hpp"
#include "openssl_error_queue.hpp"
#include "seed_source.hpp"

namespace cryptoaccel::provider {

struct RsaInner;  // rsa_provider.hpp

// Settings from the provider's section of openssl.cnf (keys `policy`,
// `driver`, `stats`, `profile`, `offload_share`, `seed_source`, `direct`,
// `gather`, `async`, `async_workers`, `key_storage`); see
// docs/provider.md and docs/rng.md.
struct ProviderConfig {
  Policy policy = Policy::fastest;
  DriverPreference drivers;  // `driver = a, b`: preferred, falling back to dispatch
  bool stats = false;        // print usage at teardown
  // The dispatch profile: a path, or empty with profile_from_environment
  // for the library's default ($CRYPTOACCEL_PROFILE or the user's cache);
  // empty without it (`profile = none`) for no profile.
  std::string profile;
  bool profile_from_environment = true;
  double offload_share = 0.5;
  // `dpdk = EAL-ARGS`: the dpdk driver, enabled (docs/drivers/dpdk.md).
  std::string dpdk;
  std::string seed_source = "best";  // what CRYPTOACCEL-SEED reads (random.hpp names)
  // `direct = yes`: what soft alone would serve goes to OpenSSL's own
  // implementation without the framework (docs/provider.md, "Speed").
  bool direct = true;
  // `gather = yes`: inside an OpenSSL ASYNC job, a CBC request that a
  // driver that gathers (mb) serves waits, with the job paused, for a burst
  // with other jobs' requests (async_burst.hpp); those algorithms then take
  // the framework's path, not the direct one.
  bool gather = false;
  // `async = yes`: inside an OpenSSL ASYNC job, RSA's private-key
  // operations run on one of `async_workers` threads with the job paused
  // (async_workers.hpp).
  bool async = true;
  unsigned async_workers = 8;
  // `key_storage = keyring`: an RSA private key the provider serves is
  // moved into the kernel keyring when it is loaded and kept nowhere in the
  // process (RsaKey::keep_in_kernel_keyring); `memory` (default) keeps it
  // in the process, where every driver can use it.
  bool keys_in_kernel = false;
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

  // The options of every session: our framework, and the configured
  // drivers as a preference that falls back to the dispatcher (and so to
  // soft) where none of them offers the algorithm or takes the key.
  const SessionOptions& session_options() const noexcept { return session_options_; }

  // Whether some driver of this instance can serve `id`: only those are
  // advertised to OpenSSL.
  bool offers(AlgorithmId id) const noexcept { return offered_[index_of(id)]; }

  // What query_operation answers, per operation (filled by provider.cpp).
  std::vector<OSSL_ALGORITHM> ciphers, digests, macs, rands, keymgmts, signatures, asym_ciphers,
      stores;

  // The default provider's RSA implementations that ours wrap.
  RsaInner& rsa_inner() noexcept { return *rsa_inner_; }

  // The source of the seed source CRYPTOACCEL-SEED, shared by its contexts.
  SeedSource& seed() noexcept { return seed_; }

  const OpenSslErrorQueue& errors() const noexcept { return errors_; }

  // The threads that run ASYNC jobs' private-key operations.
  AsyncWorkers& async_workers() noexcept { return async_workers_; }

  // OpenSSL's own implementations, for what no driver serves.
  OpenSslDefault& openssl_default() noexcept { return openssl_default_; }

  // The default provider's implementations registered as ours where soft
  // alone would serve (forwarded.hpp); built by provider.cpp.
  Forwarding& forwarding() noexcept { return *forwarding_; }

  // "ALGORITHM DRIVER REQUESTS BYTES" lines, one per pair that served a
  // request (Framework::usage()).
  std::string usage_text() const;
  // How the dispatcher chooses, on one line: policy, offload share, and the
  // profile used or why none is (Framework::dispatch_info()).
  std::string dispatch_text() const;

  // The texts of the provider parameters `stats`, `dispatch` and `seed`,
  // kept alive for a UTF8_PTR parameter until the next read.
  enum class ParamText { stats, dispatch, seed, count };
  const char* text_for_param(ParamText which);

 private:
  std::unique_ptr<Forwarding> direct_path(const std::vector<DriverInfo>& drivers);
  bool measured_faster_direct(AlgorithmId id) const;

  OpenSslErrorQueue errors_;
  ProviderConfig config_;
  Framework framework_;
  SessionOptions session_options_;
  std::array<bool, kAlgorithmCount> offered_{};
  SeedSource seed_;
  OpenSslDefault openssl_default_;
  std::unique_ptr<Forwarding> forwarding_;
  std::shared_ptr<RsaInner> rsa_inner_;
  std::mutex param_mutex_;
  std::array<std::string, static_cast<std::size_t>(ParamText::count)> param_texts_;
  // Last: its threads stop before anything they use goes.
  AsyncWorkers async_workers_;
};

// Reads the configuration through core_get_params. Throws InvalidArgument
// on a value it cannot use.
ProviderConfig read_config(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in);

}  // namespace cryptoaccel::provider
