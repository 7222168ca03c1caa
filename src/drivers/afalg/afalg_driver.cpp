// The AF_ALG driver family: one driver instance per kernel implementation
// (`afalg:cbc-aes-aesni`, `afalg:virtio_crypto_aes_cbc`), so that a user can
// see and choose exactly what runs. Absent when the kernel has no AF_ALG.
#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "cryptoaccel/driver/driver.hpp"
#include "kernel_layer.hpp"
#include "in_flight.hpp"
#include "sessions.hpp"

namespace cryptoaccel {
namespace afalg {
namespace {

bool type_matches(SocketType socket, const std::string& proc_type) {
  switch (socket) {
    case SocketType::skcipher:
      return proc_type == "skcipher" || proc_type == "ablkcipher" || proc_type == "blkcipher";
    case SocketType::aead:
      return proc_type == "aead";
    case SocketType::hash:
      return proc_type == "shash" || proc_type == "ahash";
  }
  return false;
}

// The lengths this implementation takes for one of our algorithms; null when
// it does not fit the algorithm (another key size, another IV size).
std::optional<Capability> capability_for(const Algorithm& a, const KernelName& kn,
                                         const KernelImplementation& k) {
  Capability c{.algorithm = a.id,
               .key_sizes = a.key_size,
               .iv_sizes = a.iv_sizes,
               .tag_sizes = a.tag_sizes,
               .max_request = kMaxCipherRequest};
  switch (kn.type) {
    case SocketType::skcipher:
      if (a.key_size.min < k.min_keysize || a.key_size.max > k.max_keysize) return std::nullopt;
      if (k.ivsize != a.iv_size) return std::nullopt;
      break;
    case SocketType::aead:
      // The kernel's one nonce length; tags up to its maximum (the session
      // sets the transform's tag length when a request's differs).
      if (k.ivsize == 0 || !a.iv_sizes.contains(k.ivsize) || k.maxauthsize < a.tag_sizes.min)
        return std::nullopt;
      c.iv_sizes = {k.ivsize, k.ivsize};
      c.tag_sizes = {a.tag_sizes.min, std::min<std::size_t>(a.tag_sizes.max, k.maxauthsize)};
      break;
    case SocketType::hash:
      if (k.digestsize != a.output_size) return std::nullopt;
      c.max_request = SIZE_MAX;
      // The kernel copies a key through the socket option buffer (optmem_max).
      if (a.kind == AlgorithmKind::mac) c.key_sizes = {1, 4096};
      break;
  }
  return c;
}

class AfalgDriver final : public Driver {
 public:
  AfalgDriver(KernelImplementation implementation, std::vector<Capability> capabilities)
      : implementation_(std::move(implementation)),
        name_("afalg:" + implementation_.driver),
        capabilities_(std::move(capabilities)) {}

  std::string_view name() const noexcept override { return name_; }
  std::string description() const override {
    return "kernel " + implementation_.name + " implementation '" + implementation_.driver +
           "' (module " + implementation_.module + ", priority " +
           std::to_string(implementation_.priority) + (implementation_.async ? ", async" : "") +
           ") through AF_ALG";
  }
  DriverTraits traits() const noexcept override {
    return {.kind = kind_of(implementation_),
            .priority = implementation_.priority,
            .automatic = true,
            .self_test = true,
            // Cipher and AEAD batches go to the kernel together (in_flight.hpp);
            // a hash runs one stream at a time.
            .max_in_flight = implementation_.type.ends_with("hash") ? 1 : kMaxInFlight};
  }
  std::span<const Capability> capabilities() const noexcept override { return capabilities_; }

  std::unique_ptr<DriverSession> open_session(const Algorithm& algorithm,
                                              std::span<const std::uint8_t> key) override {
    const auto kn = kernel_name(algorithm.id);
    if (!kn) throw Unsupported("afalg: no kernel name for " + std::string(algorithm.name));
    switch (kn->type) {
      case SocketType::skcipher:
        return open_skcipher(implementation_.driver, key);
      case SocketType::aead:
        return open_aead(implementation_.driver, key, 16);
      case SocketType::hash:
        return open_hash(implementation_.driver, algorithm.kind == AlgorithmKind::mac, key);
    }
    throw Unsupported("afalg: unknown socket type");
  }

 private:
  KernelImplementation implementation_;
  std::string name_;
  std::vector<Capability> capabilities_;
};

// Whether /proc/crypto lists `name` as a generic or a driver name.
bool listed(const std::vector<KernelImplementation>& all, const std::string& name) {
  return std::any_of(all.begin(), all.end(), [&](const KernelImplementation& k) {
    return k.name == name || k.driver == name;
  });
}

// Whether `template_name` over the cipher implementation `cipher` is listed:
// "cbc(aes-generic)", or "xts(ecb(aes-generic))" when the template wraps the
// cipher in another.
bool instance_listed(const std::vector<KernelImplementation>& all,
                     const std::string& template_name, const std::string& cipher) {
  return std::any_of(all.begin(), all.end(), [&](const KernelImplementation& k) {
    return k.driver.starts_with(template_name + "(") &&
           k.driver.find("(" + cipher + ")") != std::string::npos;
  });
}

// /proc/crypto lists template instances (cbc(aes-generic), ...) only once
// something has asked for them. Binding a transform to each generic name and
// to each template over each implementation of its block cipher makes every
// implementation visible. Names already listed are not bound again: a bind
// that the kernel cannot resolve by name alone ("xts(aes-generic)" becomes
// "xts(ecb(aes-generic))") makes it run modprobe for the name every time,
// which costs a process start on a small board a good part of a second.
void instantiate_implementations() {
  std::map<std::string, SocketType> names;                   // generic name -> socket type
  std::set<std::pair<std::string, std::string>> templates;  // (template, base)
  for (const Algorithm& a : algorithms()) {
    if (const auto kn = kernel_name(a.id)) {
      names.emplace(std::string(kn->name), kn->type);
      if (!kn->base.empty()) templates.insert({std::string(kn->template_), std::string(kn->base)});
    }
  }
  int error = 0;
  const auto before = read_proc_crypto();
  for (const auto& [name, type] : names) {
    if (listed(before, name)) continue;
    bind_transform(type, name, error);  // closed at once: it only instantiates
  }
  const auto all = read_proc_crypto();
  for (const auto& [template_name, base] : templates) {
    for (const KernelImplementation& k : all) {
      if (k.type != "cipher" || k.name != base || k.internal || !k.selftest_passed) continue;
      if (instance_listed(all, template_name, k.driver)) continue;
      bind_transform(SocketType::skcipher, template_name + "(" + k.driver + ")", error);
    }
  }
}

}  // namespace
}  // namespace afalg

DriverProbe probe_afalg_driver(std::string_view /*setting*/) {
  using namespace afalg;
  DriverProbe probe;
  if (const int e = probe_af_alg(); e != 0) {
    probe.absent_reason = std::string("this kernel offers no AF_ALG (socket(AF_ALG): ") +
                          std::strerror(-e) +
                          "); it needs the af_alg, algif_skcipher, algif_aead and algif_hash "
                          "modules";
    return probe;
  }
  instantiate_implementations();
  std::map<std::string, std::pair<KernelImplementation, std::vector<Capability>>> instances;
  for (const KernelImplementation& k : read_proc_crypto()) {
    if (k.internal || !k.selftest_passed) continue;
    for (const Algorithm& a : algorithms()) {
      const auto kn = kernel_name(a.id);
      if (!kn || kn->name != k.name || !type_matches(kn->type, k.type)) continue;
      if (auto c = capability_for(a, *kn, k)) {
        auto& entry = instances[k.driver];
        entry.first = k;
        entry.second.push_back(*c);
      }
    }
  }
  for (auto& [driver, entry] : instances)
    probe.drivers.push_back(std::make_unique<AfalgDriver>(entry.first, std::move(entry.second)));
  if (probe.drivers.empty())
    probe.absent_reason =
        "AF_ALG is present but no kernel implementation of a supported algorithm passed its "
        "self-test";
  return probe;
}

}  // namespace cryptoaccel
