// The `keyring` driver: RSA private keys loaded into a keyring of the
// process (never the user's session keyring) and used through keyctl's
// KEYCTL_PKEY_* operations. The kernel runs them on its best akcipher
// implementation for what is asked: enc=raw reaches the best "rsa"
// (rsa-generic, or a device's raw RSA), enc=pkcs1 with no hash the best
// "pkcs1pad(rsa)" (a device's own padding, as virtio-crypto's: public-key
// encryption only, see keyring_session.cpp). One
// instance per implementation a request can reach, named after it;
// docs/drivers/keyring.md says which request goes where.
#include <algorithm>
#include <string>
#include <vector>

#include "cryptoaccel/driver/driver.hpp"
#include "kernel/accelerators.hpp"
#include "kernel/proc_crypto.hpp"
#include "kernel_keys.hpp"
#include "keyring_session.hpp"
#include "probe_key.hpp"

namespace cryptoaccel {
namespace keyring {
namespace {

using kernel::KernelImplementation;

// Before soft (100) for a device; after it for the kernel's software, which
// is slower than OpenSSL's and serves when asked for (or when the key is
// only in the kernel).
constexpr int kHardwarePriority = 300;
constexpr int kSoftwarePriority = 40;

class KeyringDriver final : public Driver {
 public:
  KeyringDriver(KernelImplementation implementation, Reach reach, KeySerial ring)
      : implementation_(std::move(implementation)),
        reach_(reach),
        ring_(ring),
        name_("keyring:" + implementation_.driver) {
    for (const Algorithm& a : algorithms()) {
      if (a.kind != AlgorithmKind::public_key) continue;
      capabilities_.push_back(Capability{
          .algorithm = a.id,
          .key_sizes = a.key_size,
          .iv_sizes = {0, 0},
          .tag_sizes = a.tag_sizes,
          .max_request = a.output_size,
          .operations = reach == Reach::raw ? kEveryOperation
                                            : static_cast<std::uint8_t>(
                                                  operation_bit(Operation::encrypt))});
    }
  }

  std::string_view name() const noexcept override { return name_; }
  std::string description() const override {
    return "kernel keyring (keyctl KEYCTL_PKEY_*, " +
           std::string(reach_ == Reach::raw ? "enc=raw, padding in userland"
                                            : "enc=pkcs1: PKCS#1 v1.5 public-key encryption only") +
           ") on " + implementation_.driver + " (" + implementation_.name + ", priority " +
           std::to_string(implementation_.priority) + ", module " + implementation_.module + ")";
  }
  DriverTraits traits() const noexcept override {
    const DriverKind kind = kernel::kind_of(implementation_);
    return DriverTraits{
        .kind = kind,
        .priority = kind == DriverKind::hardware ? kHardwarePriority : kSoftwarePriority,
        .automatic = true,
        .self_test = true,
        .max_in_flight = 1,
        .streams_digests = false};
  }
  std::span<const Capability> capabilities() const noexcept override { return capabilities_; }
  std::unique_ptr<DriverSession> open_session(const Algorithm& algorithm,
                                              std::span<const std::uint8_t> key) override {
    if (algorithm.kind != AlgorithmKind::public_key)
      throw Unsupported("keyring: " + std::string(algorithm.name) + " is not RSA");
    // A forked child has a process keyring of its own, not the probe's.
    const KeyResult ring = process_keyring();
    return open_keyring_session(algorithm, key, ring ? static_cast<KeySerial>(ring.value) : ring_,
                                reach_);
  }

 private:
  KernelImplementation implementation_;
  Reach reach_;
  KeySerial ring_;
  std::string name_;
  std::vector<Capability> capabilities_;
};

// The implementation the kernel gives `name`: the highest priority among
// those that passed their self-test. Null when none did.
const KernelImplementation* best(const std::vector<KernelImplementation>& all,
                                 std::string_view name) {
  const KernelImplementation* found = nullptr;
  for (const KernelImplementation& k : all)
    if (k.name == name && k.type == "akcipher" && k.selftest_passed && !k.internal &&
        (found == nullptr || k.priority > found->priority))
      found = &k;
  return found;
}

}  // namespace
}  // namespace keyring

DriverProbe probe_keyring_driver(std::string_view /*setting*/) {
  using namespace keyring;
  DriverProbe probe;
  const KeyResult ring = process_keyring();
  if (!ring) {
    probe.absent_reason = describe(ring.error);
    return probe;
  }
  const auto ring_serial = static_cast<KeySerial>(ring.value);
  // A trial load: the parser, the key type and the process's quota answer here.
  const KeyResult trial = add_private_key("cryptoaccel:probe", probe_key(), ring_serial);
  if (!trial) {
    probe.absent_reason = describe(trial.error);
    return probe;
  }
  const KernelKey trial_key(static_cast<KeySerial>(trial.value), ring_serial);
  const KeyResult bits = query_key_bits(trial_key.serial(), "enc=raw");
  if (!bits) {
    probe.absent_reason =
        "the kernel holds RSA keys but cannot use them raw (KEYCTL_PKEY_QUERY "
        "enc=raw: " +
        describe(bits.error) + ")";
    return probe;
  }
  // Asking for the padded form instantiates pkcs1pad(...) where a device
  // has none of its own, so that /proc/crypto shows what serves it.
  (void)query_key_bits(trial_key.serial(), "enc=pkcs1");
  const auto all = kernel::read_proc_crypto();
  const KernelImplementation* raw = best(all, "rsa");
  if (raw == nullptr) {
    probe.absent_reason = "/proc/crypto lists no RSA akcipher that passed its self-test";
    return probe;
  }
  probe.drivers.push_back(std::make_unique<KeyringDriver>(*raw, Reach::raw, ring_serial));
  // A device's own PKCS#1 v1.5 padding: a second implementation, reached
  // by enc=pkcs1 with no hash. The template over the raw one is the raw one.
  const KernelImplementation* padded = best(all, "pkcs1pad(rsa)");
  if (padded != nullptr && !padded->driver.starts_with("pkcs1pad("))
    probe.drivers.push_back(std::make_unique<KeyringDriver>(*padded, Reach::pkcs1, ring_serial));
  return probe;
}

}  // namespace cryptoaccel
