// The framework's internals: registered drivers, their enabled algorithms and
// usage counters. Shared by the framework, the dispatcher and sessions.
#pragma once

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cryptoaccel/driver/driver.hpp"
#include "cryptoaccel/framework.hpp"
#include "health.hpp"

namespace cryptoaccel::detail {

struct UsageCounter {
  std::atomic<std::uint64_t> requests{0};
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<std::uint64_t> failures{0};
};

// How much work a driver holds now, from every session and thread, beside
// its health (health.hpp): what the dispatcher's load spreading and
// overflow (dispatcher.hpp) read.
struct DriverLoad {
  // For spreading work over equivalent hardware instances: bytes in flight
  // through the asynchronous path, and how many times the driver was chosen
  // (a batch, or a session's route), which breaks ties round-robin.
  std::atomic<std::uint64_t> outstanding_bytes{0};
  std::atomic<std::uint64_t> times_chosen{0};
  // Requests inside a hardware driver right now: compared with how many the
  // device may hold before software is sooner (Dispatcher::overflow()).
  // Software drivers do not keep it: it would cost two atomic operations
  // per small request.
  std::atomic<std::uint32_t> in_flight{0};
  // Until when (steady_clock ticks) the device counts as shared between
  // threads: set whenever a request finds another one inside it.
  std::atomic<std::int64_t> shared_until{0};
};

struct RegisteredDriver {
  std::unique_ptr<Driver> driver;
  std::string name;
  DriverTraits traits;
  std::size_t index = 0;  // position in the registry
  // Capability for each algorithm it claims and that passed its self-test;
  // null where not claimed or disabled.
  std::array<const Capability*, kAlgorithmCount> enabled{};
  std::vector<SelfTestResult> self_tests;
  std::array<UsageCounter, kAlgorithmCount> usage;
  DriverHealth health;
  DriverLoad load;
};

// Counts `requests` in a hardware driver's load.in_flight for as long as it
// lives (software drivers keep no count).
class InFlightCount {
 public:
  InFlightCount(RegisteredDriver& driver, std::uint32_t requests) noexcept
      : driver_(driver.traits.kind == DriverKind::hardware ? &driver : nullptr),
        requests_(requests) {
    if (driver_ != nullptr) driver_->load.in_flight.fetch_add(requests_, std::memory_order_relaxed);
  }
  ~InFlightCount() {
    if (driver_ != nullptr) driver_->load.in_flight.fetch_sub(requests_, std::memory_order_relaxed);
  }
  InFlightCount(const InFlightCount&) = delete;
  InFlightCount& operator=(const InFlightCount&) = delete;

 private:
  RegisteredDriver* driver_;
  std::uint32_t requests_;
};

class Registry {
 public:
  // Takes ownership, runs the self-tests and enables what passed.
  void add(std::unique_ptr<Driver> driver);
  void add_absent(std::string family, std::string reason);
  void add_note(std::string note) { notes_.push_back(std::move(note)); }

  const std::vector<std::unique_ptr<RegisteredDriver>>& drivers() const noexcept {
    return drivers_;
  }
  RegisteredDriver* find(std::string_view name) const noexcept;
  const std::vector<AbsentDriver>& absent() const noexcept { return absent_; }
  const std::vector<std::string>& notes() const noexcept { return notes_; }

 private:
  std::vector<std::unique_ptr<RegisteredDriver>> drivers_;  // stable addresses
  std::vector<AbsentDriver> absent_;
  std::vector<std::string> notes_;
};

// Probes every driver family compiled into the library (builtin_drivers.def).
// Families named in `excluded` are recorded as absent, not probed; each
// family's probe is given its entry of `settings` (FrameworkOptions).
void probe_builtin_drivers(Registry& registry, std::span<const std::string> excluded,
                           const std::map<std::string, std::string, std::less<>>& settings);

}  // namespace cryptoaccel::detail
