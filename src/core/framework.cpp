#include <cstdlib>

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

Framework::Framework(FrameworkOptions options) : impl_(std::make_unique<Impl>()) {
  auto& registry = impl_->registry;
  if (options.builtin_drivers) detail::probe_builtin_drivers(registry, options.excluded_families);
  for (auto& driver : options.drivers) {
    if (!driver) continue;
    if (registry.find(driver->name()) != nullptr)
      throw InvalidArgument("two drivers are named '" + std::string(driver->name()) + "'");
    registry.add(std::move(driver));
  }
  Policy policy = options.policy;
  if (const char* text = std::getenv("CRYPTOACCEL_POLICY");
      text != nullptr && options.policy_from_environment) {
    try {
      policy = parse_policy(text);
    } catch (const Error& e) {
      registry.add_note(std::string("CRYPTOACCEL_POLICY ignored: ") + e.what());
    }
  }
  impl_->dispatcher.build(registry, policy);
}

Framework::~Framework() = default;

Framework& Framework::global() {
  static Framework instance(FrameworkOptions{.policy_from_environment = true});
  return instance;
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

}  // namespace cryptoaccel
