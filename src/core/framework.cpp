#include <chrono>
#include <cstdlib>
#include <optional>

#include "cryptoaccel/settings.hpp"
#include "framework_impl.hpp"

namespace cryptoaccel {

std::string_view to_string(Policy policy) noexcept {
  switch (policy) {
    case Policy::fastest:
      return "fastest";
    case Policy::offload:
      return "offload";
    case Policy::software:
      return "software";
  }
  return "?";
}

Policy parse_policy(std::string_view text) {
  for (Policy p : {Policy::fastest, Policy::offload, Policy::software})
    if (text == to_string(p)) return p;
  throw InvalidArgument("unknown policy '" + std::string(text) +
                        "' (expected fastest, offload or software)");
}

std::string_view to_string(DriverKind kind) noexcept {
  return kind == DriverKind::hardware ? "hardware" : "software";
}

namespace {

// What was found at a profile's path.
enum class ProfileFound {
  usable,
  absent,      // no file there
  unreadable,  // a file that cannot be opened or read (not the reader's)
  unfit,       // stale, corrupt, not a profile: its owner's to remake
};

struct ProfileLookup {
  std::optional<Profile> profile;
  ProfileFound found = ProfileFound::absent;
  std::string detail;  // why it is used or not, for `list` and the stats
};

// The profile at `path` if it fits these drivers and this machine.
ProfileLookup usable_profile(const std::string& path, std::span<const DriverInfo> drivers) {
  ProfileLookup lookup;
  try {
    Profile profile = load_profile(path);
    const std::string mismatch = profile_mismatch(profile, drivers);
    if (!mismatch.empty()) {
      lookup.found = ProfileFound::unfit;
      lookup.detail =
          "profile " + path + " is stale: " + mismatch + " (run `cryptoaccel calibrate` again)";
      return lookup;
    }
    lookup.found = ProfileFound::usable;
    lookup.detail =
        std::to_string(profile.measurements.size()) + " measurements, made " + profile.created;
    lookup.profile = std::move(profile);
  } catch (const NotFound&) {
    lookup.found = ProfileFound::absent;
    lookup.detail = "no profile at " + path + " (run `cryptoaccel calibrate`)";
  } catch (const ProfileUnreadable& e) {
    lookup.found = ProfileFound::unreadable;
    lookup.detail = std::string(e.what()) + "; not used";
  } catch (const Error& e) {
    lookup.found = ProfileFound::unfit;
    lookup.detail = std::string(e.what()) + "; not used";
  }
  return lookup;
}

}  // namespace

Framework::Framework(FrameworkOptions options) : impl_(std::make_unique<Impl>()) {
  auto& registry = impl_->registry;
  if (options.builtin_drivers) {
    auto settings = options.family_settings;
    // CRYPTOACCEL_DPDK enables the dpdk driver in any program. EAL's
    // arguments can load code (-d), so a set-user-ID program never reads
    // them from its caller's environment.
    if (!settings.contains("dpdk"))
      if (const char* eal = secure_getenv("CRYPTOACCEL_DPDK"); eal != nullptr && *eal != '\0')
        settings.emplace("dpdk", eal);
    detail::probe_builtin_drivers(registry, options.excluded_families, settings);
  }
  for (auto& driver : options.drivers) {
    if (!driver) continue;
    if (registry.find(driver->name()) != nullptr)
      throw InvalidArgument("two drivers are named '" + std::string(driver->name()) + "'");
    registry.add(std::move(driver));
  }
  Policy policy = options.policy;
  double share = options.offload_share;
  if (options.policy_from_environment) {
    // A bad value is left out with a note (`cryptoaccel list` shows it):
    // the command still runs, on the settings it was given.
    std::vector<std::string> ignored;
    const EnvironmentSettings environment = read_environment(&ignored);
    policy = environment.policy.value_or(policy);
    share = environment.offload_share.value_or(share);
    for (std::string& note : ignored) registry.add_note(std::move(note));
  }
  for (const auto& d : registry.drivers())
    d->health.configure(options.failures_to_quarantine,
                        std::chrono::milliseconds(options.quarantine_ms));

  DispatchInfo& info = impl_->dispatch;
  info.policy = policy;
  info.offload_share = share;
  info.profile_path = options.profile_path;
  if (info.profile_path.empty() && options.profile_from_environment)
    info.profile_path = default_profile_path();
  std::optional<Profile> profile;
  if (info.profile_path.empty()) {
    info.detail = "no profile given";
  } else {
    ProfileLookup user = usable_profile(info.profile_path, drivers());
    profile = std::move(user.profile);
    info.detail = std::move(user.detail);
    // The user's own profile comes first; where there is none (only then:
    // a stale or corrupt one is the user's to remake, and a path named in
    // CRYPTOACCEL_PROFILE is the one asked for), the machine's. One the
    // user may not read, such as root's under `sudo -u`, is not theirs.
    const char* named = secure_getenv("CRYPTOACCEL_PROFILE");
    const bool user_has_none =
        (user.found == ProfileFound::absent || user.found == ProfileFound::unreadable) &&
        options.profile_path.empty() && (named == nullptr || *named == '\0');
    if (user_has_none) {
      const std::string machine = machine_profile_path();
      ProfileLookup machine_lookup = usable_profile(machine, drivers());
      if (machine_lookup.profile) {
        profile = std::move(machine_lookup.profile);
        info.profile_path = machine;
        info.detail = std::move(machine_lookup.detail);
      } else if (machine_lookup.found != ProfileFound::absent) {
        info.detail += "; machine profile: " + machine_lookup.detail;
      }
    }
  }
  if (profile) info.provider_direct = profile->provider_direct;
  info.profiled = profile.has_value();
  impl_->dispatcher.build(registry, policy, profile ? &*profile : nullptr, share);
}

DispatchInfo Framework::dispatch_info() const {
  DispatchInfo info = impl_->dispatch;
  for (const auto& d : impl_->registry.drivers())
    if (d->health.quarantined()) info.quarantined.push_back(d->name);
  return info;
}

Framework::~Framework() = default;

// Never destroyed: a program may call exit() while its other threads are
// still in the middle of requests, and static destructors would pull the
// registry and the drivers from under them. The kernel releases what the
// drivers hold (descriptors, keyrings, threads) when the process ends.
Framework& Framework::global() {
  static Framework* const instance = new Framework(
      FrameworkOptions{.policy_from_environment = true, .profile_from_environment = true});
  return *instance;
}

std::vector<DriverInfo> Framework::drivers() const {
  std::vector<DriverInfo> out;
  for (const auto& d : impl_->registry.drivers()) {
    const auto caps = d->driver->capabilities();
    out.push_back(DriverInfo{.name = d->name,
                             .description = d->driver->description(),
                             .traits = d->traits,
                             .capabilities = {caps.begin(), caps.end()},
                             .self_tests = d->self_tests});
  }
  return out;
}

const std::vector<AbsentDriver>& Framework::absent() const noexcept {
  return impl_->registry.absent();
}

const std::vector<std::string>& Framework::notes() const noexcept {
  return impl_->registry.notes();
}

Policy Framework::policy() const noexcept {
  return impl_->dispatcher.policy();
}

std::vector<UsageCount> Framework::usage() const {
  std::vector<UsageCount> out;
  for (const auto& d : impl_->registry.drivers()) {
    for (std::size_t a = 0; a < kAlgorithmCount; ++a) {
      const auto& u = d->usage[a];
      UsageCount count{.driver = d->name,
                       .algorithm = static_cast<AlgorithmId>(a),
                       .requests = u.requests.load(std::memory_order_relaxed),
                       .bytes = u.bytes.load(std::memory_order_relaxed),
                       .failures = u.failures.load(std::memory_order_relaxed)};
      if (count.requests != 0 || count.failures != 0) out.push_back(std::move(count));
    }
  }
  return out;
}

std::vector<BurstUsage> Framework::bursts() const {
  std::vector<BurstUsage> out;
  for (const auto& d : impl_->registry.drivers())
    for (std::size_t a = 0; a < kAlgorithmCount; ++a) {
      const auto id = static_cast<AlgorithmId>(a);
      const BurstCount count = d->driver->bursts(id);
      if (count.bursts != 0) out.push_back({d->name, id, count});
    }
  return out;
}

void Framework::count_usage(std::size_t driver, AlgorithmId algorithm, std::uint64_t requests,
                            std::uint64_t bytes) noexcept {
  const auto& drivers = impl_->registry.drivers();
  if (driver >= drivers.size()) return;
  auto& u = drivers[driver]->usage[index_of(algorithm)];
  u.requests.fetch_add(requests, std::memory_order_relaxed);
  u.bytes.fetch_add(bytes, std::memory_order_relaxed);
}

}  // namespace cryptoaccel
