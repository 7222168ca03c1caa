#include "provider_context.hpp"

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

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// `stats = VALUE`: anything but these words is a mistake to report.
bool parse_switch(std::string_view value, std::string_view where) {
  for (std::string_view yes : {"1", "yes", "true", "on"})
    if (value == yes) return true;
  for (std::string_view no : {"0", "no", "false", "off", ""})
    if (value == no) return false;
  throw InvalidArgument("cryptoaccel provider: " + std::string(where) + " '" + std::string(value) +
                        "' is not one of 1, yes, true, on, 0, no, false, off");
}

// `seed_source = NAME`: the names open_random_source() takes.
void check_seed_source(std::string_view name) {
  for (std::string_view fixed : {"best", "hwrng", "getrandom", "rdrand", "rdseed", "afalg"})
    if (name == fixed) return;
  if (name.starts_with("afalg:") || name.starts_with("file:")) return;
  throw InvalidArgument("cryptoaccel provider: seed_source '" + std::string(name) +
                        "' is not one of best, hwrng, getrandom, rdrand, rdseed, afalg[:ALG], "
                        "file:PATH");
}

FrameworkOptions framework_options(const ProviderConfig& config) {
  FrameworkOptions options;
  options.policy = config.policy;
  options.profile_path = config.profile;
  options.profile_from_environment = config.profile_from_environment;
  options.offload_share = config.offload_share;
  return options;
}

// The same bounds as the library's CRYPTOACCEL_OFFLOAD_SHARE; `where` names
// the setting in the message.
double parse_offload_share(std::string_view text, std::string_view where) {
  const std::string value(trim(text));
  char* end = nullptr;
  const double share = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !(share > 0 && share <= 1000))
    throw InvalidArgument("cryptoaccel provider: " + std::string(where) + " '" + value +
                          "' is not a number in (0, 1000] (the share of software throughput "
                          "hardware must reach under the offload policy)");
  return share;
}

// Whether `driver` serves `id` and proved it in its self-test.
bool serves(const DriverInfo& driver, AlgorithmId id) {
  for (std::size_t i = 0; i < driver.capabilities.size(); ++i)
    if (driver.capabilities[i].algorithm == id)
      return i >= driver.self_tests.size() || driver.self_tests[i].passed ||
             !driver.self_tests[i].tested;
  return false;
}

}  // namespace

ProviderConfig read_config(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in) {
  check_config_keys(handle, in);
  ProviderConfig config;
  auto* get_params = core_function<OSSL_FUNC_core_get_params_fn>(in, OSSL_FUNC_CORE_GET_PARAMS);
  char* policy = nullptr;
  char* driver = nullptr;
  char* stats = nullptr;
  char* profile = nullptr;
  char* share = nullptr;
  char* seed_source = nullptr;
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_ptr("policy", &policy, 0),
                         OSSL_PARAM_construct_utf8_ptr("driver", &driver, 0),
                         OSSL_PARAM_construct_utf8_ptr("stats", &stats, 0),
                         OSSL_PARAM_construct_utf8_ptr("profile", &profile, 0),
                         OSSL_PARAM_construct_utf8_ptr("offload_share", &share, 0),
                         OSSL_PARAM_construct_utf8_ptr("seed_source", &seed_source, 0),
                         OSSL_PARAM_END};
  if (get_params != nullptr) get_params(handle, params);
  if (policy != nullptr && *policy != '\0') {
    try {
      config.policy = parse_policy(trim(policy));
    } catch (const Error& e) {
      throw InvalidArgument(std::string("cryptoaccel provider: policy: ") + e.what());
    }
  }
  if (driver != nullptr) {
    std::string_view list = driver;
    while (!list.empty()) {
      const std::size_t comma = list.find(',');
      const std::string_view name = trim(list.substr(0, comma));
      if (!name.empty()) config.drivers.emplace_back(name);
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    }
  }
  if (stats != nullptr) config.stats = parse_switch(trim(stats), "stats");
  if (const char* env = std::getenv("CRYPTOACCEL_STATS"); env != nullptr)
    config.stats = parse_switch(trim(env), "CRYPTOACCEL_STATS");
  if (profile != nullptr && !trim(profile).empty()) {
    config.profile_from_environment = false;
    if (trim(profile) != "none") config.profile = trim(profile);
  }
  if (share != nullptr) config.offload_share = parse_offload_share(share, "offload_share");
  if (seed_source != nullptr && !trim(seed_source).empty()) {
    config.seed_source = trim(seed_source);
    check_seed_source(config.seed_source);
  }
  // The environment overrides the file, as for the library's tools: a
  // profile or share can be tried for one command without editing it.
  if (const char* env = std::getenv("CRYPTOACCEL_POLICY"); env != nullptr && *env != '\0')
    config.policy = parse_policy(trim(env));
  if (const char* env = std::getenv("CRYPTOACCEL_PROFILE"); env != nullptr && *env != '\0') {
    config.profile.clear();  // default_profile_path() reads it
    config.profile_from_environment = true;
  }
  if (const char* env = std::getenv("CRYPTOACCEL_OFFLOAD_SHARE"); env != nullptr && *env != '\0')
    config.offload_share = parse_offload_share(env, "CRYPTOACCEL_OFFLOAD_SHARE");
  return config;
}

ProviderContext::ProviderContext(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in)
    : errors_(handle, in),
      config_(read_config(handle, in)),
      framework_(framework_options(config_)),
      seed_(config_.seed_source) {
  const std::vector<DriverInfo> drivers = framework_.drivers();
  for (const std::string& name : config_.drivers)
    if (std::none_of(drivers.begin(), drivers.end(),
                     [&](const DriverInfo& d) { return d.name == name; }))
      throw NotFound("cryptoaccel provider: no driver named '" + name +
                     "' on this machine (`cryptoaccel list` shows the drivers)");
  // The null driver returns its input unchanged: a way to measure overhead,
  // never something an application may be served by.
  for (const std::string& name : config_.drivers)
    for (const DriverInfo& d : drivers)
      if (d.name == name && !d.traits.self_test)
        throw InvalidArgument("cryptoaccel provider: driver '" + name +
                              "' does no cryptography (it only measures overhead) and cannot "
                              "serve applications; name a real driver (`cryptoaccel list`)");
  unpinned_.framework = &framework_;
  for (const Algorithm& a : algorithms()) {
    SessionOptions& options = options_[index_of(a.id)];
    options.framework = &framework_;
    for (const std::string& name : config_.drivers) {
      auto d = std::find_if(drivers.begin(), drivers.end(),
                            [&](const DriverInfo& info) { return info.name == name; });
      if (serves(*d, a.id)) {
        options.driver = name;
        break;
      }
    }
    bool offered = !options.driver.empty();
    for (const DriverInfo& d : drivers)
      offered = offered || (d.traits.automatic && serves(d, a.id));
    offered_[index_of(a.id)] = offered;
  }
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

CoreErrors::CoreErrors(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in) noexcept
    : handle_(handle),
      new_error_(core_function<OSSL_FUNC_core_new_error_fn>(in, OSSL_FUNC_CORE_NEW_ERROR)),
      set_error_debug_(
          core_function<OSSL_FUNC_core_set_error_debug_fn>(in, OSSL_FUNC_CORE_SET_ERROR_DEBUG)),
      vset_error_(core_function<OSSL_FUNC_core_vset_error_fn>(in, OSSL_FUNC_CORE_VSET_ERROR)) {}

void CoreErrors::raise(int reason, const char* file, int line, const char* func, const char* format,
                       va_list args) const noexcept {
  if (new_error_ == nullptr || vset_error_ == nullptr) return;
  new_error_(handle_);
  if (set_error_debug_ != nullptr) set_error_debug_(handle_, file, line, func);
  vset_error_(handle_, static_cast<uint32_t>(reason), format, args);
}

std::string ProviderContext::usage_text() const {
  std::ostringstream out;
  for (const UsageCount& u : framework_.usage())
    out << "  " << algorithm(u.algorithm).name << ' ' << u.driver << " requests=" << u.requests
        << " bytes=" << u.bytes << " failures=" << u.failures << '\n';
  out << openssl_default_.usage_text();
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
  if (!info.quarantined.empty()) {
    out << "; quarantined:";
    for (const std::string& name : info.quarantined) out << ' ' << name;
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
