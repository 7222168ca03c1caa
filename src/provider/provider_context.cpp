#include "provider_context.hpp"

#include "rsa_provider.hpp"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "config_keys.hpp"
#include "cryptoaccel/settings.hpp"

namespace cryptoaccel::provider {
namespace {

// Writes `text` to `fd` so that it can never harm the process: sshd's
// sandboxed child has RLIMIT_FSIZE 0 and a file for stderr, where a plain
// write raises SIGXFSZ and kills it. With the signal blocked the write
// fails with EFBIG instead; the signal then stays pending and blocked (the
// process is ending), since delivering it would kill the process after all.
// Only rt_sigprocmask and write are called: both are allowed in OpenSSH's
// seccomp sandbox.
void write_harmlessly(int fd, std::string_view text) {
  sigset_t xfsz, previous;
  sigemptyset(&xfsz);
  sigaddset(&xfsz, SIGXFSZ);
  if (pthread_sigmask(SIG_BLOCK, &xfsz, &previous) != 0) return;
  bool too_big = false;
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      too_big = n < 0 && errno == EFBIG;
      break;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  if (!too_big) pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

FrameworkOptions framework_options(const ProviderConfig& config) {
  FrameworkOptions options;
  options.policy = config.policy;
  options.profile_path = config.profile;
  options.profile_from_environment = config.profile_from_environment;
  options.offload_share = config.offload_share;
  if (!config.dpdk.empty()) options.family_settings.emplace("dpdk", config.dpdk);
  return options;
}

// Whether `driver` serves `id` and proved it in its self-test.
bool serves(const DriverInfo& driver, AlgorithmId id) {
  for (std::size_t i = 0; i < driver.capabilities.size(); ++i)
    if (driver.capabilities[i].algorithm == id)
      return i >= driver.self_tests.size() || driver.self_tests[i].passed ||
             !driver.self_tests[i].tested;
  return false;
}

ProviderConfig read_settings(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in) {
  check_config_keys(handle, in);
  ProviderConfig config;
  auto* get_params = core_function<OSSL_FUNC_core_get_params_fn>(in, OSSL_FUNC_CORE_GET_PARAMS);
  char* policy = nullptr;
  char* driver = nullptr;
  char* stats = nullptr;
  char* profile = nullptr;
  char* share = nullptr;
  char* seed_source = nullptr;
  char* direct = nullptr;
  char* gather = nullptr;
  char* async = nullptr;
  char* async_workers = nullptr;
  char* key_storage = nullptr;
  char* dpdk = nullptr;
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_ptr("policy", &policy, 0),
                         OSSL_PARAM_construct_utf8_ptr("driver", &driver, 0),
                         OSSL_PARAM_construct_utf8_ptr("stats", &stats, 0),
                         OSSL_PARAM_construct_utf8_ptr("profile", &profile, 0),
                         OSSL_PARAM_construct_utf8_ptr("offload_share", &share, 0),
                         OSSL_PARAM_construct_utf8_ptr("seed_source", &seed_source, 0),
                         OSSL_PARAM_construct_utf8_ptr("direct", &direct, 0),
                         OSSL_PARAM_construct_utf8_ptr("gather", &gather, 0),
                         OSSL_PARAM_construct_utf8_ptr("async", &async, 0),
                         OSSL_PARAM_construct_utf8_ptr("async_workers", &async_workers, 0),
                         OSSL_PARAM_construct_utf8_ptr("key_storage", &key_storage, 0),
                         OSSL_PARAM_construct_utf8_ptr("dpdk", &dpdk, 0),
                         OSSL_PARAM_END};
  if (get_params != nullptr) get_params(handle, params);
  if (policy != nullptr && !trim_setting(policy).empty())
    config.policy = parse_policy(policy, "policy");
  if (driver != nullptr) config.drivers = DriverPreference::parse(driver);
  if (stats != nullptr) config.stats = parse_switch(stats, "stats");
  if (profile != nullptr && !trim_setting(profile).empty()) {
    config.profile_from_environment = false;
    if (trim_setting(profile) != "none") config.profile = trim_setting(profile);
  }
  if (share != nullptr) config.offload_share = parse_offload_share(share, "offload_share");
  if (seed_source != nullptr && !trim_setting(seed_source).empty())
    config.seed_source = parse_seed_source(seed_source, "seed_source");
  if (direct != nullptr && !trim_setting(direct).empty())
    config.direct = parse_switch(direct, "direct");
  if (gather != nullptr) config.gather = parse_switch(gather, "gather");
  if (async != nullptr && !trim_setting(async).empty()) config.async = parse_switch(async, "async");
  if (async_workers != nullptr && !trim_setting(async_workers).empty())
    config.async_workers = parse_count(async_workers, "async_workers", 1, 64);
  if (key_storage != nullptr && !trim_setting(key_storage).empty()) {
    const std::string_view storage = trim_setting(key_storage);
    if (storage != "memory" && storage != "keyring")
      throw InvalidArgument("key_storage: '" + std::string(storage) +
                            "' is not a key storage (memory, keyring)");
    config.keys_in_kernel = storage == "keyring";
  }
  if (dpdk != nullptr) config.dpdk = std::string(trim_setting(dpdk));
  // The environment overrides the file, as for the library's tools: a
  // profile or share can be tried for one command without editing it. A
  // bad value fails the load, as a bad key does.
  const EnvironmentSettings environment = read_environment();
  config.policy = environment.policy.value_or(config.policy);
  config.offload_share = environment.offload_share.value_or(config.offload_share);
  config.stats = environment.stats.value_or(config.stats);
  config.direct = environment.direct.value_or(config.direct);
  // As the library reads it (framework.cpp): never from the caller of a
  // set-user-ID program, since EAL's arguments can load code.
  if (const char* eal = secure_getenv("CRYPTOACCEL_DPDK"); eal != nullptr && *eal != '\0')
    config.dpdk = eal;
  if (environment.profile) {
    config.profile.clear();  // default_profile_path() reads it
    config.profile_from_environment = true;
  }
  return config;
}

}  // namespace

ProviderConfig read_config(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in) {
  try {
    return read_settings(handle, in);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("cryptoaccel provider: ") + e.what());
  }
}

ProviderContext::ProviderContext(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in)
    : errors_(handle, in),
      config_(read_config(handle, in)),
      framework_(framework_options(config_)),
      seed_(config_.seed_source),
      async_workers_(config_.async_workers) {
  try {
    check_serving_preference(framework_, config_.drivers, "applications");
  } catch (const NotFound& e) {
    throw NotFound(std::string("cryptoaccel provider: ") + e.what());
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("cryptoaccel provider: ") + e.what());
  }
  // A configured driver that does not offer an algorithm, or refuses a
  // key, leaves it to the dispatcher (and so to soft), never to another
  // provider.
  session_options_ = {.framework = &framework_, .driver = config_.drivers, .fall_back = true};
  const std::vector<DriverInfo> drivers = framework_.drivers();
  for (const Algorithm& a : algorithms()) {
    bool offered = false;
    for (const DriverInfo& d : drivers) {
      const bool pinned =
          std::find(config_.drivers.drivers().begin(), config_.drivers.drivers().end(), d.name) !=
          config_.drivers.drivers().end();
      offered = offered || ((pinned || d.traits.automatic) && serves(d, a.id));
    }
    offered_[index_of(a.id)] = offered;
  }
  forwarding_ = direct_path(drivers);
  rsa_inner_ = std::make_shared<RsaInner>(*this);
}

// Does a driver that gathers serve `a` where the provider waits for bursts
// (`gather = yes`: CBC ciphers)?
bool gathered(const Algorithm& a, const std::vector<DriverInfo>& drivers) {
  if (a.mode != CipherMode::cbc) return false;
  for (const DriverInfo& d : drivers)
    if (d.traits.gathers)
      for (const Capability& c : d.capabilities)
        if (c.algorithm == a.id) return true;
  return false;
}

// Where the profile in use (`cryptoaccel calibrate --machine`) measured
// OpenSSL's own implementation, called as applications call it, at least as
// fast as this provider's sessions on the dispatcher's choice. Not where
// the configuration names drivers or another policy: that is the user's
// choice, and the profile measured the `fastest` order.
bool ProviderContext::measured_faster_direct(AlgorithmId id) const {
  if (!session_options_.driver.empty() || framework_.policy() != Policy::fastest) return false;
  const std::vector<AlgorithmId> direct = framework_.dispatch_info().provider_direct;
  return std::find(direct.begin(), direct.end(), id) != direct.end();
}

// The algorithms whose every request soft alone would serve go to
// OpenSSL's own implementation directly (forwarded.hpp), the AEADs behind
// the checks the provider keeps where OpenSSL 3.0's default lacks them.
std::unique_ptr<Forwarding> ProviderContext::direct_path(const std::vector<DriverInfo>& drivers) {
  constexpr std::string_view kSoft = "soft";
  std::size_t soft = drivers.size();
  for (std::size_t i = 0; i < drivers.size(); ++i)
    if (drivers[i].name == kSoft) soft = i;
  std::vector<AlgorithmId> candidates;
  bool every_hmac_soft = true, any_hmac = false;
  if (config_.direct && soft != drivers.size()) {
    for (const Algorithm& a : algorithms()) {
      if (!offers(a.id) || a.kind == AlgorithmKind::public_key) continue;
      const bool sole_soft =
          (sole_driver(a, session_options_) == kSoft || measured_faster_direct(a.id)) &&
          !(config_.gather && gathered(a, drivers));
      if (a.kind == AlgorithmKind::mac) {
        any_hmac = true;
        every_hmac_soft = every_hmac_soft && sole_soft;
      } else if (sole_soft) {
        candidates.push_back(a.id);
      }
    }
  }
  return std::make_unique<Forwarding>(framework_, soft, openssl_default_, errors_, candidates,
                                      config_.direct && any_hmac && every_hmac_soft);
}

ProviderContext::~ProviderContext() {
  if (!config_.stats) return;
  // stderr, so that a command's own output (a digest, ciphertext) stays clean.
  const std::string text = usage_text();
  std::string report =
      "cryptoaccel provider usage (policy " + std::string(to_string(framework_.policy())) +
      ")\n  dispatch: " + dispatch_text() + "\n" + (text.empty() ? "  no requests served\n" : text);
  // Only when OpenSSL seeded from us: most processes never do.
  const SeedCounters seed = seed_.counters();
  if (seed.calls + seed.failures != 0) report += "  seed " + seed_.text() + "\n";
  write_harmlessly(STDERR_FILENO, report);
}

OpenSslErrorQueue::OpenSslErrorQueue(const OSSL_CORE_HANDLE* handle,
                                     const OSSL_DISPATCH* in) noexcept
    : handle_(handle),
      new_error_(core_function<OSSL_FUNC_core_new_error_fn>(in, OSSL_FUNC_CORE_NEW_ERROR)),
      set_error_debug_(
          core_function<OSSL_FUNC_core_set_error_debug_fn>(in, OSSL_FUNC_CORE_SET_ERROR_DEBUG)),
      vset_error_(core_function<OSSL_FUNC_core_vset_error_fn>(in, OSSL_FUNC_CORE_VSET_ERROR)) {}

void OpenSslErrorQueue::raise(int reason, const char* file, int line, const char* func,
                              const char* format, va_list args) const noexcept {
  if (new_error_ == nullptr || vset_error_ == nullptr) return;
  new_error_(handle_);
  if (set_error_debug_ != nullptr) set_error_debug_(handle_, file, line, func);
  vset_error_(handle_, static_cast<uint32_t>(reason), format, args);
}

std::string ProviderContext::usage_text() const {
  commit_direct_usage();  // this thread's latest requests on the direct path
  std::ostringstream out;
  for (const UsageCount& u : framework_.usage())
    out << "  " << algorithm(u.algorithm).name << ' ' << u.driver << " requests=" << u.requests
        << " bytes=" << u.bytes << " failures=" << u.failures << '\n';
  out << openssl_default_.usage_text();
  const AsyncWorkers::Counts async = async_workers_.counts();
  if (async.completed != 0)
    out << "  async: " << async.completed
        << " private-key operations on workers with their jobs paused, at most "
        << async.peak_in_flight << " at once\n";
  return out.str();
}

std::string ProviderContext::dispatch_text() const {
  const DispatchInfo info = framework_.dispatch_info();
  std::ostringstream out;
  out << "policy " << to_string(info.policy) << ", offload share " << info.offload_share << "; ";
  if (info.profiled)
    out << "by measured speed per request size, profile " << info.profile_path << " ("
        << info.detail << ')';
  else
    out << "conservative default, one order for every size: " << info.detail;
  // Only those it applies to: not public-key algorithms (never forwarded),
  // nor any where the configuration names drivers or another policy.
  std::string measured_direct;
  for (const AlgorithmId id : info.provider_direct)
    if (algorithm(id).kind != AlgorithmKind::public_key && offers(id) && measured_faster_direct(id))
      measured_direct += ' ' + std::string(algorithm(id).name);
  if (info.profiled && !measured_direct.empty())
    out << "; measured faster in OpenSSL's own implementation:" << measured_direct;
  if (!info.quarantined.empty()) {
    out << "; quarantined:";
    for (const std::string& name : info.quarantined) out << ' ' << name;
  }
  const std::size_t direct = forwarding_->forwarded_algorithms();
  if (direct != 0 || forwarding_->hmac_table() != nullptr) {
    out << "; direct: " << direct << " algorithms";
    if (forwarding_->hmac_table() != nullptr) out << " and HMAC";
    out << " (soft, without the framework)";
  }
  return out.str();
}

const char* ProviderContext::text_for_param(ParamText which) {
  std::string text = which == ParamText::stats      ? usage_text()
                     : which == ParamText::dispatch ? dispatch_text()
                                                    : seed_.text();
  std::lock_guard lock(param_mutex_);
  std::string& kept = param_texts_[static_cast<std::size_t>(which)];
  kept = std::move(text);
  return kept.c_str();
}

}  // namespace cryptoaccel::provider
