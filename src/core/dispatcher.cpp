#include "dispatcher.hpp"

#include <algorithm>

namespace cryptoaccel::detail {
namespace {

// Lower rank is tried first.
int kind_rank(Policy policy, DriverKind kind) {
  const bool hardware = kind == DriverKind::hardware;
  switch (policy) {
    case Policy::offload:
      return hardware ? 0 : 1;
    case Policy::fastest:
    case Policy::software:
      return hardware ? 1 : 0;
  }
  return 0;
}

}  // namespace

void Dispatcher::build(const Registry& registry, Policy policy) {
  policy_ = policy;
  for (std::size_t a = 0; a < kAlgorithmCount; ++a) {
    auto& order = order_[a];
    order.clear();
    for (const auto& d : registry.drivers()) {
      if (!d->traits.automatic || d->enabled[a] == nullptr) continue;
      if (policy == Policy::software && d->traits.kind == DriverKind::hardware) continue;
      order.push_back(d.get());
    }
    std::stable_sort(order.begin(), order.end(), [policy](const auto* x, const auto* y) {
      const int rx = kind_rank(policy, x->traits.kind);
      const int ry = kind_rank(policy, y->traits.kind);
      if (rx != ry) return rx < ry;
      return x->traits.priority > y->traits.priority;
    });
  }
}

}  // namespace cryptoaccel::detail
