#include "kernel_choices.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "accelerators.hpp"

namespace cryptoaccel::kernel {
namespace {

// The implementations a template instance's driver name is built of:
// "authenc(hmac(sha256-generic),cbc-aes-aesni)" -> hmac(sha256-generic),
// sha256-generic, cbc-aes-aesni: each argument, and the arguments of each.
std::vector<std::string> parts_of(std::string_view driver) {
  std::vector<std::string> parts;
  const std::size_t open = driver.find('(');
  const std::size_t close = driver.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close <= open)
    return parts;
  const std::string_view arguments = driver.substr(open + 1, close - open - 1);
  int depth = 0;
  std::size_t from = 0;
  for (std::size_t i = 0; i <= arguments.size(); ++i) {
    if (i == arguments.size() || (arguments[i] == ',' && depth == 0)) {
      const std::string_view argument = arguments.substr(from, i - from);
      if (!argument.empty()) {
        parts.emplace_back(argument);
        for (std::string& inner : parts_of(argument)) parts.push_back(std::move(inner));
      }
      from = i + 1;
    } else if (arguments[i] == '(') {
      ++depth;
    } else if (arguments[i] == ')') {
      --depth;
    }
  }
  return parts;
}

KernelImplementationInfo describe(const KernelImplementation& k,
                                  const std::vector<KernelImplementation>& all) {
  KernelImplementationInfo info{.driver = k.driver,
                                .module = k.module,
                                .priority = k.priority,
                                .selftest_passed = k.selftest_passed};
  if (kind_of(k) == DriverKind::hardware) {
    info.hardware = true;
    return info;
  }
  for (const std::string& part : parts_of(k.driver)) {
    const auto it = std::find_if(all.begin(), all.end(),
                                 [&](const KernelImplementation& i) { return i.driver == part; });
    if (it == all.end() ? is_kernel_accelerator(part) : kind_of(*it) == DriverKind::hardware) {
      info.hardware = true;
      info.hardware_part = it == all.end() ? part : it->name + " on " + part;
      return info;
    }
  }
  return info;
}

std::string users_of(std::string_view name) {
  for (const KernelUserAlgorithm& u : kernel_user_algorithms())
    if (u.name == name) return std::string(u.user);
  return {};
}

}  // namespace

const std::vector<KernelUserAlgorithm>& kernel_user_algorithms() {
  static const std::vector<KernelUserAlgorithm> users = {
      {"authenc(hmac(sha256),cbc(aes))", SocketType::aead, "IPsec ESP"},
      {"authenc(hmac(sha1),cbc(aes))", SocketType::aead, "IPsec ESP"},
      {"authenc(hmac(sha512),cbc(aes))", SocketType::aead, "IPsec ESP"},
      {"rfc4106(gcm(aes))", SocketType::aead, "IPsec ESP"},
      {"rfc7539esp(chacha20,poly1305)", SocketType::aead, "IPsec ESP"},
      {"gcm(aes)", SocketType::aead, "IPsec ESP, TLS (kTLS)"},
      {"hmac(sha256)", SocketType::hash, "IPsec AH and ESP"},
      {"xts(aes)", SocketType::skcipher, "dm-crypt, fscrypt"},
      {"cbc(aes)", SocketType::skcipher, "dm-crypt, IPsec ESP"},
      {"essiv(cbc(aes),sha256)", SocketType::skcipher, "dm-crypt, fscrypt"},
      {"cts(cbc(aes))", SocketType::skcipher, "fscrypt"},
  };
  return users;
}

std::vector<KernelAlgorithmChoice> kernel_choices(const std::vector<KernelImplementation>& all) {
  // The kernel's names are shorter than CRYPTO_MAX_ALG_NAME (128 bytes):
  // anything longer is no kernel's (a file put in /proc/crypto's place) and
  // would only cost time and memory to take apart.
  constexpr std::size_t kMaxName = 128;
  std::map<std::string, std::vector<const KernelImplementation*>> by_name;
  for (const KernelImplementation& k : all)
    if (!k.internal && !k.name.empty() && k.name.size() < kMaxName && k.driver.size() < kMaxName)
      by_name[k.name].push_back(&k);
  std::vector<KernelAlgorithmChoice> out;
  for (auto& [name, implementations] : by_name) {
    std::stable_sort(implementations.begin(), implementations.end(),
                     [](const KernelImplementation* a, const KernelImplementation* b) {
                       return a->priority > b->priority;
                     });
    KernelAlgorithmChoice choice{.name = name,
                                 .type = implementations.front()->type,
                                 .used_by = users_of(name)};
    for (const KernelImplementation* k : implementations) {
      if (!choice.chosen_known && k->selftest_passed) {
        choice.chosen_known = true;
        choice.chosen = describe(*k, all);
      } else {
        choice.others.push_back(describe(*k, all));
      }
    }
    out.push_back(std::move(choice));
  }
  return out;
}

std::vector<UnloadedAccelerator> describe_unloaded(const std::vector<UnloadedModule>& unloaded,
                                                   const std::vector<KernelAlgorithmChoice>& choices,
                                                   std::string_view kernel_release) {
  std::vector<UnloadedAccelerator> out;
  for (const UnloadedModule& u : unloaded) {
    UnloadedAccelerator a{.module = u.module, .device = u.device, .would_change = {}};
    for (const KnownRegistration& r : known_registrations(u.module, kernel_release)) {
      const auto it = std::find_if(choices.begin(), choices.end(),
                                   [&](const KernelAlgorithmChoice& c) { return c.name == r.name; });
      const std::string offered =
          std::string(r.name) + ": " + std::string(r.driver) + " at priority " +
          std::to_string(r.priority);
      if (it == choices.end() || !it->chosen_known)
        a.would_change.push_back(offered + " (none now)");
      else
        a.would_change.push_back(offered +
                                 (r.priority > it->chosen.priority    ? " would replace "
                                  : r.priority == it->chosen.priority ? " would tie with "
                                                                      : " would stay below ") +
                                 it->chosen.driver + " (" + std::to_string(it->chosen.priority) +
                                 ")");
      if (!r.condition.empty()) a.would_change.back() += ", " + std::string(r.condition);
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace cryptoaccel::kernel
