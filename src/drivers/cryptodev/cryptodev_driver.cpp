// The cryptodev driver family: /dev/crypto with the cryptodev-linux ABI, from
// the kernel module or from a `cryptoaccel devcrypto` server. cryptodev-linux
// picks the implementation behind each algorithm itself (the highest priority
// of the generic name); CIOCGSESSINFO tells which one it picked, and the
// algorithms are grouped by that into instances (`cryptodev:cbc-aes-aesni`),
// as the AF_ALG family groups by kernel driver.
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <map>

#include "cryptoaccel/driver/driver.hpp"
#include "device.hpp"
#include "implementation.hpp"
#include "parallel_ioctls.hpp"
#include "sessions.hpp"

namespace cryptoaccel {
namespace cryptodev {
namespace {

// Set by `cryptoaccel devcrypto` in its own environment (see docs/devcrypto.md).
constexpr const char* kServerMark = "CRYPTOACCEL_DEVCRYPTO_SERVER";

Capability capability_for(const Algorithm& a, const Implementation& implementation) {
  Capability c{.algorithm = a.id,
               .key_sizes = a.key_size,
               .iv_sizes = a.iv_sizes,
               .tag_sizes = a.tag_sizes,
               .max_request = kMaxRequest};
  switch (a.kind) {
    case AlgorithmKind::aead:
      c.iv_sizes = {12, 12};  // the ABI takes the session's IV size: 12 for gcm(aes)
      break;
    case AlgorithmKind::mac:
      c.key_sizes = {1, kMaxHmacKey};
      c.max_request = SIZE_MAX;  // hashed in pieces
      break;
    case AlgorithmKind::digest:
      c.max_request = SIZE_MAX;
      break;
    case AlgorithmKind::cipher:
      // cryptodev-linux refuses (EINVAL) a length that is not a multiple of
      // the kernel cipher's block size; xts(aes) has a 16-byte block, so the
      // ciphertext stealing OpenSSL and the kernel do for other lengths is
      // not reachable through the module. The probe asked the device.
      if (a.mode == CipherMode::xts && !implementation.partial_blocks)
        c.input_multiple = a.block_size;
      break;
    case AlgorithmKind::public_key:
      break;  // never claimed: the ABI's sessions are symmetric
  }
  return c;
}

class CryptodevDriver final : public Driver {
 public:
  CryptodevDriver(std::string path, Implementation implementation,
                  std::vector<Capability> capabilities)
      : path_(std::move(path)),
        implementation_(std::move(implementation)),
        name_("cryptodev:" + implementation_.driver),
        capabilities_(std::move(capabilities)) {}

  std::string_view name() const noexcept override { return name_; }
  std::string description() const override { return describe(implementation_, path_); }
  DriverTraits traits() const noexcept override {
    return {.kind = implementation_.kind,
            .priority = priority_of(implementation_),
            // Our own server runs this framework behind CUSE: choosing it
            // automatically would only add round trips.
            .automatic = !implementation_.our_server,
            .self_test = true,
            .max_in_flight = kMaxParallelIoctls};
  }
  std::span<const Capability> capabilities() const noexcept override { return capabilities_; }

  std::unique_ptr<DriverSession> open_session(const Algorithm& algorithm,
                                              std::span<const std::uint8_t> key) override {
    switch (algorithm.kind) {
      case AlgorithmKind::cipher:
        return open_cipher(path_, algorithm, key);
      case AlgorithmKind::aead:
        return open_aead(path_, algorithm, key);
      case AlgorithmKind::digest:
      case AlgorithmKind::mac:
        return open_hash(path_, algorithm, key);
      case AlgorithmKind::public_key:
        break;
    }
    throw Unsupported("cryptodev: unknown algorithm kind");
  }

 private:
  std::string path_;
  Implementation implementation_;
  std::string name_;
  std::vector<Capability> capabilities_;
};

}  // namespace
}  // namespace cryptodev

DriverProbe probe_cryptodev_driver(std::string_view /*setting*/) {
  using namespace cryptodev;
  DriverProbe probe;
  const std::string path = device_path();
  // secure_getenv: a set-user-ID caller's environment does not switch
  // the family off (only the server itself sets it, and runs as root).
  if (secure_getenv(kServerMark) != nullptr) {
    probe.absent_reason =
        "this process is a `cryptoaccel devcrypto` server: its " + path +
        " would lead back into itself, so the cryptodev family is not probed here";
    return probe;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    probe.absent_reason = "no " + path +
                          " on this machine (neither the cryptodev-linux module nor a "
                          "`cryptoaccel devcrypto` server provides one)";
    return probe;
  }
  int error = 0;
  const auto device = Device::open(path, error);
  if (device == nullptr) {
    probe.absent_reason = "cannot open " + path + ": " + std::strerror(-error);
    return probe;
  }
  std::map<std::string, std::pair<Implementation, std::vector<Capability>>> instances;
  for (const Algorithm& a : algorithms()) {
    if (!ids_of(a.id)) continue;
    const auto implementation = find_implementation(device, a);
    if (!implementation) continue;
    auto& entry = instances[implementation->driver];
    entry.first = *implementation;
    entry.second.push_back(capability_for(a, *implementation));
  }
  for (auto& [name, entry] : instances)
    probe.drivers.push_back(
        std::make_unique<CryptodevDriver>(path, std::move(entry.first), std::move(entry.second)));
  if (probe.drivers.empty())
    probe.absent_reason = path + " refused a session for every algorithm we know";
  return probe;
}

}  // namespace cryptoaccel
