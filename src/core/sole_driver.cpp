// sole_driver(): whether one driver would serve every request of an
// algorithm, whatever its key, IV, tag and size. The provider asks it to
// learn where OpenSSL's own implementation can serve directly
// (docs/provider.md, "Speed").
#include <algorithm>

#include "cryptoaccel/session.hpp"
#include "framework_impl.hpp"

namespace cryptoaccel {
namespace {

bool includes(SizeRange outer, SizeRange inner) noexcept {
  return outer.min <= inner.min && outer.max >= inner.max;
}

// Does `driver` take every key, IV, tag and length of `algorithm` that any
// other driver the dispatcher may choose takes? Otherwise some request would
// go elsewhere.
bool serves_every_request(const detail::Registry& registry, const detail::RegisteredDriver& driver,
                          const Algorithm& algorithm) {
  const Capability* capability = driver.enabled[index_of(algorithm.id)];
  if (capability == nullptr || capability->input_multiple != 1 ||
      capability->max_aad != kAnyLength ||
      !includes(capability->key_sizes, algorithm.key_size) ||
      !includes(capability->iv_sizes, algorithm.iv_sizes) ||
      !includes(capability->tag_sizes, algorithm.tag_sizes))
    return false;
  for (const auto& other : registry.drivers()) {
    // One the dispatcher never chooses (null) takes nothing away from it.
    if (!other->traits.automatic) continue;
    const Capability* theirs = other->enabled[index_of(algorithm.id)];
    if (theirs != nullptr && theirs->max_request > capability->max_request) return false;
  }
  return true;
}

}  // namespace

std::string sole_driver(const Algorithm& algorithm, const SessionOptions& options) {
  Framework::Impl& framework =
      (options.framework ? *options.framework : Framework::global()).impl();
  const detail::Registry& registry = framework.registry;
  // A preference: its first driver that offers the algorithm serves every
  // session, unless it refuses some key length (then another may serve).
  for (const std::string& name : options.driver.drivers()) {
    const detail::RegisteredDriver* driver = registry.find(name);
    if (driver == nullptr) return {};
    if (driver->enabled[index_of(algorithm.id)] == nullptr) continue;
    return serves_every_request(registry, *driver, algorithm) ? driver->name : std::string();
  }
  if (!options.driver.empty() && !options.fall_back) return {};
  // The dispatcher: the same first choice at every size, with nothing to
  // spread the load over and no overflow to another driver.
  const detail::Dispatcher& dispatcher = framework.dispatcher;
  const detail::RegisteredDriver* first = nullptr;
  for (const std::size_t size : kSizeBuckets) {
    const auto candidates = dispatcher.candidates(algorithm.id, size);
    if (candidates.empty() || dispatcher.peers(algorithm.id, size) != 1 ||
        dispatcher.overflow(algorithm.id, size).software != nullptr)
      return {};
    if (first != nullptr && candidates.front() != first) return {};
    first = candidates.front();
  }
  if (first == nullptr || first->health.quarantined() ||
      !serves_every_request(registry, *first, algorithm))
    return {};
  return first->name;
}

}  // namespace cryptoaccel
