// The dpdk driver: every crypto device DPDK drives from userland (QAT, CCP,
// CNXK, CAAM, virtio-crypto through vfio or uio, and its software PMDs) as
// one cryptoaccel driver each, named after the device (docs/drivers/dpdk.md).
// It is opt-in: without EAL arguments in the configuration nothing of DPDK
// is loaded, and `cryptoaccel list` shows the line that enables it.
#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithm_map.hpp"
#include "backend_loader.hpp"
#include "cryptoaccel/driver/driver.hpp"
#include "cryptoaccel/settings.hpp"
#include "dpdk_session.hpp"
#include "eal_arguments.hpp"

namespace cryptoaccel {
namespace dpdk {
namespace {

// Software PMDs rank below soft, as mb does: only a calibration that
// measured them faster puts them first. Devices rank above soft, so the
// `offload` policy and an uncalibrated dispatcher use them.
constexpr int kSoftwarePriority = 50;
constexpr int kHardwarePriority = 200;

// The lengths of `wanted` the device accepts, as one range (the library's
// ranges have no gaps); nothing when it accepts none.
std::optional<SizeRange> accepted(SizeRange wanted, const ca_dpdk_range& offered) {
  std::optional<SizeRange> found;
  for (std::size_t n = wanted.min; n <= wanted.max && n <= offered.max; ++n) {
    if (!accepts(offered, n)) continue;
    if (!found) found = SizeRange{n, n};
    found->max = n;
  }
  return found;
}

class DpdkDriver final : public Driver {
 public:
  DpdkDriver(const ca_dpdk_backend& backend, int id, const ca_dpdk_device& device)
      : backend_(backend), id_(id), device_(device), name_("dpdk:" + std::string(device.name)) {
    for (const Algorithm& a : algorithms()) {
      const auto mapped = backend_algorithm(a.id);
      if (!mapped) continue;
      ca_dpdk_capability offered{};
      backend.capability(id, *mapped, &offered);
      if (!offered.supported) continue;
      const auto capability = capability_of(a, offered);
      if (!capability || !takes_alone(a, *mapped, *capability)) continue;
      capabilities_.push_back(*capability);
      offered_[index_of(a.id)] = offered;
      mapped_[index_of(a.id)] = *mapped;
    }
  }

  std::string_view name() const noexcept override { return name_; }
  std::string description() const override {
    return std::string("DPDK ") + device_.driver + (device_.hardware ? " (hardware)" : "") + ", " +
           std::to_string(device_.queue_pairs) + " queue pairs" +
           (device_.synchronous ? ", in-place requests through its CPU crypto API" : "") +
           (device_.by_reference ? "" : ", requests copied to DMA memory");
  }
  DriverTraits traits() const noexcept override {
    return {.kind = device_.hardware ? DriverKind::hardware : DriverKind::software,
            .priority = device_.hardware ? kHardwarePriority : kSoftwarePriority,
            .automatic = true,
            .self_test = true,
            .max_in_flight = CA_DPDK_MAX_BURST / 2,
            .streams_digests = false,
            .gathers = false};
  }
  std::span<const Capability> capabilities() const noexcept override { return capabilities_; }

  std::unique_ptr<DriverSession> open_session(const Algorithm& algorithm,
                                              std::span<const std::uint8_t> key) override {
    const auto index = index_of(algorithm.id);
    if (!offered_[index].supported)
      throw Unsupported(name_ + ": " + std::string(algorithm.name) + " is not offered");
    return std::make_unique<DpdkSession>(backend_, id_, algorithm, mapped_[index], offered_[index],
                                         key);
  }

 private:
  std::optional<Capability> capability_of(const Algorithm& a, const ca_dpdk_capability& offered) {
    Capability c{.algorithm = a.id,
                 .key_sizes = a.key_size,
                 .iv_sizes = a.iv_sizes,
                 .tag_sizes = a.tag_sizes,
                 .max_request = device_.max_request};
    // Whole blocks only: the request's bytes must fit the device's.
    c.max_request -= c.max_request % std::max<std::size_t>(a.block_size, 1);
    const bool hashes = a.kind == AlgorithmKind::digest || a.kind == AlgorithmKind::mac;
    if (a.kind != AlgorithmKind::digest) {
      const auto keys = accepted(a.key_size, offered.key);
      if (!keys) return std::nullopt;
      c.key_sizes = *keys;
    }
    if (!hashes) {
      const auto ivs = accepted(a.iv_sizes, offered.iv);
      if (!ivs) return std::nullopt;
      c.iv_sizes = *ivs;
    }
    if (a.kind == AlgorithmKind::aead) {
      const auto tags = accepted(a.tag_sizes, offered.digest);
      if (!tags) return std::nullopt;
      c.tag_sizes = *tags;
    }
    if (hashes && !accepts(offered.digest, a.output_size)) return std::nullopt;
    // DPDK's XTS takes whole blocks: no ciphertext stealing.
    if (a.mode == CipherMode::xts) c.input_multiple = 16;
    // Where the device may lack a length a request brings that the
    // capability cannot state (AAD lengths with gaps; the empty message of
    // an HMAC whose plain digest it lacks), it names its operations, so that
    // such a request is declined to the next driver; the framework then
    // sends requests one at a time. Elsewhere it takes every operation, and
    // batches whole; an AAD beyond its longest goes elsewhere (max_aad).
    bool may_decline = false;
    if (a.kind == AlgorithmKind::aead) {
      c.max_aad = offered.aad.max;
      may_decline = offered.aad.min != 0 || (offered.aad.step != 1 && offered.aad.max != 0);
    }
    if (a.kind == AlgorithmKind::mac) {
      ca_dpdk_capability plain{};
      if (const auto digest = plain_digest_of(*backend_algorithm(a.id)))
        backend_.capability(id_, *digest, &plain);
      may_decline = !plain.supported || !accepts(plain.digest, a.output_size);
    }
    if (may_decline)
      c.operations = hashes ? operation_bit(Operation::digest)
                            : operation_bit(Operation::encrypt) | operation_bit(Operation::decrypt);
    return c;
  }

  // Some devices list an authentication they take only chained to a
  // cipher (DPDK's virtio PMD and its HMAC-SHA1): a session of the
  // algorithm alone is tried once, and a refusal means it is not offered.
  bool takes_alone(const Algorithm& a, int mapped, const Capability& c) {
    if (a.kind != AlgorithmKind::digest && a.kind != AlgorithmKind::mac) return true;
    std::vector<std::uint8_t> key(a.kind == AlgorithmKind::mac ? c.key_sizes.min : 0);
    if (a.kind == AlgorithmKind::mac && key.empty() && c.key_sizes.contains(1)) key.resize(1);
    const ca_dpdk_session_params params{.algorithm = mapped,
                                        .direction = CA_DPDK_DIGEST,
                                        .key = key.data(),
                                        .key_length = static_cast<std::uint32_t>(key.size()),
                                        .digest_length = static_cast<std::uint32_t>(a.output_size)};
    char message[160] = {};
    void* session = backend_.session_create(id_, &params, message, sizeof message);
    if (session == nullptr) return false;
    backend_.session_free(id_, session);
    return true;
  }

  const ca_dpdk_backend& backend_;
  int id_;
  ca_dpdk_device device_;
  std::string name_;
  std::vector<Capability> capabilities_;
  std::array<ca_dpdk_capability, kAlgorithmCount> offered_{};
  std::array<int, kAlgorithmCount> mapped_{};
};

}  // namespace
}  // namespace dpdk

DriverProbe probe_dpdk_driver(std::string_view setting) {
  DriverProbe probe;
  if (trim_setting(setting).empty()) {
    probe.absent_reason = "not configured: give DPDK's EAL arguments, e.g. CRYPTOACCEL_DPDK='" +
                          std::string(dpdk::kTryingArguments) + "' (docs/drivers/dpdk.md)";
    return probe;
  }
  std::vector<std::string> arguments = dpdk::eal_arguments(setting);
  const dpdk::LoadedBackend& loaded = dpdk::load_backend();
  if (loaded.backend == nullptr) {
    probe.absent_reason = loaded.reason;
    return probe;
  }
  const ca_dpdk_backend& backend = *loaded.backend;
  std::vector<char*> argv{const_cast<char*>("cryptoaccel")};
  for (std::string& a : arguments) argv.push_back(a.data());
  argv.push_back(nullptr);
  char message[1024] = {};
  if (backend.start(static_cast<int>(argv.size() - 1), argv.data(), message, sizeof message) != 0) {
    probe.absent_reason = message;
    return probe;
  }
  probe.notes.emplace_back(message);
  const int count = backend.device_count();
  for (int id = 0; id < count; ++id) {
    ca_dpdk_device device{};
    if (backend.device_open(id, &device) != 0) continue;
    if (!device.usable) {
      probe.notes.push_back(std::string(device.name) + " gave no instance: " + device.unusable);
      continue;
    }
    auto driver = std::make_unique<dpdk::DpdkDriver>(backend, id, device);
    if (driver->capabilities().empty()) {
      probe.notes.push_back(std::string(device.name) + " (" + device.driver +
                            ") gave no instance: it offers none of the library's algorithms");
      continue;
    }
    probe.drivers.push_back(std::move(driver));
  }
  if (probe.drivers.empty())
    probe.absent_reason = count == 0
                              ? "EAL found no crypto device (no --vdev, no bound PCI device?)"
                              : "no DPDK crypto device is usable (see the notes)";
  return probe;
}

}  // namespace cryptoaccel
