#include "provider_context.hpp"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace cryptoaccel::provider {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool truthy(std::string_view value) {
  return value == "1" || value == "yes" || value == "true" || value == "on";
}

FrameworkOptions framework_options(const ProviderConfig& config) {
  FrameworkOptions options;
  options.policy = config.policy;
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

}  // namespace

ProviderConfig read_config(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in) {
  ProviderConfig config;
  auto* get_params = core_function<OSSL_FUNC_core_get_params_fn>(in, OSSL_FUNC_CORE_GET_PARAMS);
  char* policy = nullptr;
  char* driver = nullptr;
  char* stats = nullptr;
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_ptr("policy", &policy, 0),
                         OSSL_PARAM_construct_utf8_ptr("driver", &driver, 0),
                         OSSL_PARAM_construct_utf8_ptr("stats", &stats, 0), OSSL_PARAM_END};
  if (get_params != nullptr) get_params(handle, params);
  if (policy != nullptr && *policy != '\0') config.policy = parse_policy(trim(policy));
  if (driver != nullptr) {
    std::string_view list = driver;
    while (!list.empty()) {
      const std::size_t comma = list.find(',');
      const std::string_view name = trim(list.substr(0, comma));
      if (!name.empty()) config.drivers.emplace_back(name);
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    }
  }
  if (stats != nullptr) config.stats = truthy(trim(stats));
  if (const char* env = std::getenv("CRYPTOACCEL_STATS"); env != nullptr)
    config.stats = truthy(trim(env));
  if (const char* env = std::getenv("CRYPTOACCEL_POLICY"); env != nullptr && *env != '\0')
    config.policy = parse_policy(trim(env));
  return config;
}

ProviderContext::ProviderContext(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in)
    : errors_(handle, in),
      config_(read_config(handle, in)),
      framework_(framework_options(config_)) {
  const std::vector<DriverInfo> drivers = framework_.drivers();
  for (const std::string& name : config_.drivers)
    if (std::none_of(drivers.begin(), drivers.end(),
                     [&](const DriverInfo& d) { return d.name == name; }))
      throw NotFound("cryptoaccel provider: no driver named '" + name +
                     "' on this machine (`cryptoaccel list` shows the drivers)");
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
  std::fprintf(stderr, "cryptoaccel provider usage (policy %s)\n%s",
               std::string(to_string(framework_.policy())).c_str(),
               text.empty() ? "  no requests served\n" : text.c_str());
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
  return out.str();
}

const char* ProviderContext::usage_text_for_param() {
  std::lock_guard lock(param_mutex_);
  param_text_ = usage_text();
  return param_text_.c_str();
}

}  // namespace cryptoaccel::provider
