// The mb driver: libipsec-mb's multi-buffer code, which runs up to 16
// independent AES-CBC streams or SHA-2 messages side by side in the vector
// units (docs/drivers/mb.md). It is worth the most where requests arrive
// together, so it never goes first without a measurement: calibrated, the
// dispatcher chooses it where it was faster.
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "cryptoaccel/driver/driver.hpp"
#include "manager.hpp"
#include "mb_session.hpp"
#include "thread_state.hpp"

namespace cryptoaccel {
namespace mb {
namespace {

// Largest request. The multi-buffer lanes of CBC encryption and of the
// hashes count bytes in 16 bits: the library refuses (or, unchecked,
// miscomputes) 64 KiB and more, so those claim whole blocks below it and a
// larger request goes to another driver. CTR and GCM run one buffer at a
// time with 64-bit lengths; a CTR request is split where its 32-bit counter
// wraps, which a request of at most 1 GiB does at most once.
constexpr std::size_t kMaxLaneRequest = 65536 - 16;
constexpr std::size_t kMaxRequest = std::size_t{1} << 30;

std::size_t max_request(Family family) {
  return family == Family::ctr || family == Family::gcm ? kMaxRequest : kMaxLaneRequest;
}

// How long a queued request waits for company at most, unless
// CRYPTOACCEL_MB_DEADLINE_US says otherwise (docs/drivers/mb.md).
constexpr std::chrono::microseconds kDefaultDeadline{20};
constexpr long kMaxDeadlineMicroseconds = 100000;

// The lanes one burst fills on this code: the width to gather to.
std::size_t lane_width(IMB_ARCH arch) {
  switch (arch) {
    case IMB_ARCH_AVX512:
      return 16;
    case IMB_ARCH_AVX2:
      return 8;
    default:
      return 4;
  }
}

class MbDriver final : public Driver {
 public:
  MbDriver(IMB_ARCH arch, std::chrono::microseconds deadline) : arch_(arch), deadline_(deadline) {
    for (const Algorithm& a : algorithms()) {
      const auto route = route_of(a.id);
      if (!route) continue;
      capabilities_.push_back({.algorithm = a.id,
                               .key_sizes = a.key_size,
                               .iv_sizes = a.iv_sizes,
                               .tag_sizes = a.tag_sizes,
                               .max_request = max_request(route->family)});
      RouteGatherers& g = gatherers_[index_of(a.id)];
      g.encrypt =
          std::make_unique<Gatherer>(*route, Operation::encrypt, lane_width(arch), deadline);
      g.decrypt =
          std::make_unique<Gatherer>(*route, Operation::decrypt, lane_width(arch), deadline);
    }
  }

  std::string_view name() const noexcept override { return "mb"; }
  std::string description() const override {
    return "libipsec-mb " + std::string(imb_get_version_str()) + ", " + arch_name(arch_) +
           " code (" + std::to_string(lane_width(arch_)) + " lanes), requests gathered for " +
           std::to_string(deadline_.count()) + " us at most";
  }
  DriverTraits traits() const noexcept override {
    // Below soft: a lone request is slower here (one lane of many), so only
    // a calibration that measured it faster puts mb first.
    return {.kind = DriverKind::software,
            .priority = 50,
            .automatic = true,
            .self_test = true,
            .max_in_flight = 2 * lane_width(arch_),
            .streams_digests = false,
            .gathers = true};
  }
  std::span<const Capability> capabilities() const noexcept override { return capabilities_; }
  BurstCount bursts(AlgorithmId algorithm) const noexcept override {
    const RouteGatherers& g = gatherers_[index_of(algorithm)];
    if (!g.encrypt) return {};
    const BurstCount e = g.encrypt->counts(), d = g.decrypt->counts();
    return {.bursts = e.bursts + d.bursts, .requests = e.requests + d.requests};
  }

  std::unique_ptr<DriverSession> open_session(const Algorithm& algorithm,
                                              std::span<const std::uint8_t> key) override {
    const auto route = route_of(algorithm.id);
    if (!route) throw Unsupported("mb: " + std::string(algorithm.name) + " is not served");
    return open_mb_session(*route, gatherers_[index_of(algorithm.id)], key);
  }

 private:
  IMB_ARCH arch_;
  std::chrono::microseconds deadline_;
  std::vector<Capability> capabilities_;
  std::array<RouteGatherers, kAlgorithmCount> gatherers_;
};

// CRYPTOACCEL_MB_DEADLINE_US: whole microseconds, 0 to 100000.
std::chrono::microseconds deadline_from_environment(std::vector<std::string>& notes) {
  const char* text = secure_getenv("CRYPTOACCEL_MB_DEADLINE_US");
  if (text == nullptr || *text == '\0') return kDefaultDeadline;
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 0 || value > kMaxDeadlineMicroseconds) {
    notes.push_back("CRYPTOACCEL_MB_DEADLINE_US ignored: '" + std::string(text) +
                    "' is not a whole number of microseconds from 0 to " +
                    std::to_string(kMaxDeadlineMicroseconds));
    return kDefaultDeadline;
  }
  return std::chrono::microseconds(value);
}

}  // namespace
}  // namespace mb

DriverProbe probe_mb_driver(std::string_view /*setting*/) {
  DriverProbe probe;
  IMB_MGR* manager = nullptr;
  try {
    manager = &mb::thread_manager();
  } catch (const Error& e) {
    probe.absent_reason = e.what();
    return probe;
  }
  const auto arch = static_cast<IMB_ARCH>(manager->used_arch);
  if (arch == IMB_ARCH_NOAESNI || arch == IMB_ARCH_NONE) {
    probe.absent_reason = "this CPU has no AES-NI: libipsec-mb's code for it is slower than soft";
    return probe;
  }
  const auto deadline = mb::deadline_from_environment(probe.notes);
  probe.drivers.push_back(std::make_unique<mb::MbDriver>(arch, deadline));
  return probe;
}

}  // namespace cryptoaccel
