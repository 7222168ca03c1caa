#include "config_keys.hpp"

#include <openssl/conf.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "cryptoaccel/error.hpp"
#include "openssl_error_queue.hpp"

namespace cryptoaccel::provider {
namespace {

// The keys a provider section may hold: OpenSSL's module and activate,
// ours (docs/provider.md), then OpenSSL's rarer ones; the error for an
// unknown key lists them in this order.
constexpr std::string_view kKnownKeys[] = {
    "module",        "activate",    "policy",   "driver",   "stats", "profile",
    "offload_share", "seed_source", "direct",   "gather",   "async", "async_workers",
    "key_storage",   "dpdk",        "identity", "soft_load"};

struct OpensslFree {
  void operator()(char* p) const noexcept { OPENSSL_free(p); }
};
struct ConfFree {
  void operator()(CONF* conf) const noexcept { NCONF_free(conf); }
};

const char* value(CONF* conf, const char* section, const char* name) {
  const char* v = NCONF_get_string(conf, section, name);
  ERR_clear_error();  // an absent name is not an error here
  return v;
}

}  // namespace

void check_config_keys(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in) {
  auto* get_params = core_function<OSSL_FUNC_core_get_params_fn>(in, OSSL_FUNC_CORE_GET_PARAMS);
  if (get_params == nullptr) return;
  char* name = nullptr;
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_CORE_PROV_NAME, &name, 0),
                         OSSL_PARAM_END};
  if (!get_params(handle, params) || name == nullptr) return;

  // As OpenSSL reads it: a set-user-ID program ignores the caller's.
  const char* env = secure_getenv("OPENSSL_CONF");
  std::unique_ptr<char, OpensslFree> fallback(CONF_get1_default_config_file());
  const char* file = env != nullptr && *env != '\0' ? env : fallback.get();
  if (file == nullptr) return;
  std::unique_ptr<CONF, ConfFree> conf(NCONF_new(nullptr));
  if (!conf || NCONF_load(conf.get(), file, nullptr) <= 0) {
    ERR_clear_error();  // OpenSSL itself reports an unreadable configuration
    return;
  }
  const char* init = value(conf.get(), nullptr, "openssl_conf");
  const char* providers = init != nullptr ? value(conf.get(), init, "providers") : nullptr;
  const char* section = providers != nullptr ? value(conf.get(), providers, name) : nullptr;
  if (section == nullptr) return;  // loaded another way (-provider, OSSL_PROVIDER_load)
  STACK_OF(CONF_VALUE)* entries = NCONF_get_section(conf.get(), section);
  for (int i = 0; entries != nullptr && i < sk_CONF_VALUE_num(entries); ++i) {
    const std::string_view key = sk_CONF_VALUE_value(entries, i)->name;
    bool known = false;
    for (std::string_view k : kKnownKeys) known = known || key == k;
    if (!known) {
      std::string listed;
      for (std::string_view k : kKnownKeys) listed.append(listed.empty() ? "" : ", ").append(k);
      throw InvalidArgument("cryptoaccel provider: unknown key '" + std::string(key) + "' in [" +
                            section + "] of " + file + " (known: " + listed + ")");
    }
  }
}

}  // namespace cryptoaccel::provider
