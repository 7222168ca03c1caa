// The framework: the registry of drivers found on this machine, their
// self-test results, the dispatcher and the usage counters.
//
// Thread safety: a Framework is safe to use from many threads at once (its
// driver set is fixed after construction; counters are atomic). A session
// serves one thread at a time; use one session per thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cryptoaccel/algorithm.hpp"
#include "cryptoaccel/driver/driver.hpp"

namespace cryptoaccel {

// How the dispatcher chooses a driver when none is pinned.
enum class Policy : std::uint8_t {
  fastest,   // highest expected throughput for the request's size
  offload,   // hardware whenever it is available, to free the CPU
  software,  // software drivers only
};

std::string_view to_string(Policy policy) noexcept;
// Parses "fastest", "offload" or "software"; throws InvalidArgument.
Policy parse_policy(std::string_view text);

// The result of one algorithm's self-test on one driver.
struct SelfTestResult {
  AlgorithmId algorithm;
  bool passed = false;
  bool tested = false;  // false for drivers that do no cryptography
  std::string detail;   // why it failed, or what was proven
};

struct DriverInfo {
  std::string name;
  std::string description;
  DriverTraits traits;
  std::vector<Capability> capabilities;
  std::vector<SelfTestResult> self_tests;  // one per capability, same order
};

struct AbsentDriver {
  std::string family;
  std::string reason;
};

// Requests and bytes served, per driver and algorithm.
struct UsageCount {
  std::string driver;
  AlgorithmId algorithm;
  std::uint64_t requests = 0;
  std::uint64_t bytes = 0;
  std::uint64_t failures = 0;  // driver failures that were retried elsewhere or reported
};

// Requests run together, per driver and algorithm (drivers that count them).
struct BurstUsage {
  std::string driver;
  AlgorithmId algorithm;
  BurstCount count;
};

struct FrameworkOptions {
  bool builtin_drivers = true;  // probe the drivers built into the library
  // Built-in families not to probe ("cryptodev"): `list` shows them absent.
  std::vector<std::string> excluded_families;
  // What the configuration says for a family, by its name: "dpdk" holds
  // the EAL arguments that enable the dpdk driver (docs/drivers/dpdk.md).
  // A family with no entry is probed with its defaults.
  std::map<std::string, std::string, std::less<>> family_settings;
  std::vector<std::unique_ptr<Driver>> drivers;  // extra drivers (tests, plug-ins)
  Policy policy = Policy::fastest;
  bool policy_from_environment = false;  // CRYPTOACCEL_POLICY overrides `policy`
  // The dispatch profile (profile.hpp) to load; empty: none, unless
  // profile_from_environment, which loads default_profile_path()
  // ($CRYPTOACCEL_PROFILE or the user's cache) and, where the user has none
  // there, the machine's (machine_profile_path()). A missing, corrupt,
  // stale or other-version profile is not used; dispatch_info() says why.
  std::string profile_path;
  bool profile_from_environment = false;
  // `offload`: hardware goes first for a size where it reaches this share of
  // the best software throughput (CRYPTOACCEL_OFFLOAD_SHARE overrides it
  // when policy_from_environment).
  double offload_share = 0.5;
  // Failover: after this many failures in a row a driver is quarantined for
  // `quarantine_ms` (doubling while it keeps failing, up to 64x); 0: never.
  unsigned failures_to_quarantine = 3;
  unsigned quarantine_ms = 1000;
};

// How the dispatcher decides, for `cryptoaccel list` and the provider.
struct DispatchInfo {
  Policy policy = Policy::fastest;
  double offload_share = 0.5;
  bool profiled = false;                 // measurements from a profile steer the choice
  std::string profile_path;              // the profile looked for ("" when none was)
  std::string detail;                    // "N measurements, made <date>", or why none is used
  std::vector<std::string> quarantined;  // drivers out of automatic dispatch now
  // The profile in use measured these faster in OpenSSL's own implementation
  // than through the provider's sessions (Profile::provider_direct).
  std::vector<AlgorithmId> provider_direct;
};

class Framework {
 public:
  explicit Framework(FrameworkOptions options = {});
  ~Framework();
  Framework(const Framework&) = delete;
  Framework& operator=(const Framework&) = delete;

  // The process-wide framework with the built-in drivers, created on first
  // use (thread-safe), with its policy from CRYPTOACCEL_POLICY when set.
  static Framework& global();

  std::vector<DriverInfo> drivers() const;
  const std::vector<AbsentDriver>& absent() const noexcept;
  const std::vector<std::string>& notes() const noexcept;
  Policy policy() const noexcept;
  DispatchInfo dispatch_info() const;

  // Counters since construction, only non-zero entries.
  std::vector<UsageCount> usage() const;
  // Bursts and the requests in them, where a driver counted any.
  std::vector<BurstUsage> bursts() const;
  // Adds to the counters of drivers()[driver] for `algorithm` what
  // OpenSSL's own implementation served on its behalf, outside any
  // session: the provider's direct path, where soft is the sole driver
  // (sole_driver()). An index out of range is ignored.
  void count_usage(std::size_t driver, AlgorithmId algorithm, std::uint64_t requests,
                   std::uint64_t bytes) noexcept;

  struct Impl;
  Impl& impl() noexcept { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace cryptoaccel
