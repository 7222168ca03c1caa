#include "dispatcher.hpp"

#include <algorithm>
#include <map>

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

// Measured throughput of one request at a time, by (driver, algorithm,
// bucket); the figure at the bucket's own size wins over others in it.
class Throughputs {
 public:
  explicit Throughputs(const Profile* profile) {
    if (profile == nullptr) return;
    for (const Measurement& m : profile->measurements) {
      if (m.in_flight != 1) continue;
      const std::size_t bucket = size_bucket(m.size);
      auto& slot = figures_[{m.driver, index_of(m.algorithm), bucket}];
      if (slot.second == 0 || m.size == kSizeBuckets[bucket]) slot = {m.size, m.bytes_per_second};
    }
  }
  double of(const RegisteredDriver& d, std::size_t algorithm, std::size_t bucket) const {
    const auto it = figures_.find({d.name, algorithm, bucket});
    return it == figures_.end() ? 0 : it->second.second;
  }

 private:
  std::map<std::tuple<std::string, std::size_t, std::size_t>, std::pair<std::size_t, double>>
      figures_;
};

}  // namespace

void Dispatcher::build(const Registry& registry, Policy policy, const Profile* profile,
                       double offload_share) {
  policy_ = policy;
  offload_share_ = offload_share;
  profiled_ = profile != nullptr;
  const Throughputs measured(profile);
  for (std::size_t a = 0; a < kAlgorithmCount; ++a) {
    std::vector<RegisteredDriver*> eligible;
    for (const auto& d : registry.drivers()) {
      if (!d->traits.automatic || d->enabled[a] == nullptr) continue;
      if (policy == Policy::software && d->traits.kind == DriverKind::hardware) continue;
      eligible.push_back(d.get());
    }
    PerAlgorithm& per = order_[a];
    for (std::size_t b = 0; b < kSizeBucketCount; ++b) {
      const auto rate = [&](const RegisteredDriver* d) { return measured.of(*d, a, b); };
      double best_software = 0;
      for (const RegisteredDriver* d : eligible)
        if (d->traits.kind == DriverKind::software)
          best_software = std::max(best_software, rate(d));
      // Offload: hardware that reaches the share of the best software (or
      // that was not measured against it) goes first.
      const auto offloads = [&](const RegisteredDriver* d) {
        if (policy != Policy::offload || d->traits.kind != DriverKind::hardware) return false;
        return rate(d) == 0 || best_software == 0 || rate(d) >= offload_share * best_software;
      };
      std::vector<RegisteredDriver*> order = eligible;
      std::stable_sort(order.begin(), order.end(), [&](const auto* x, const auto* y) {
        if (offloads(x) != offloads(y)) return offloads(x);
        const bool mx = rate(x) > 0, my = rate(y) > 0;
        if (mx != my) return mx;                                 // measured first
        if (mx && rate(x) != rate(y)) return rate(x) > rate(y);  // then the faster
        const int rx = kind_rank(policy, x->traits.kind), ry = kind_rank(policy, y->traits.kind);
        if (rx != ry) return rx < ry;
        return x->traits.priority > y->traits.priority;
      });
      // Equivalent hardware at the head: the load is spread over them.
      std::size_t peers = 1;
      if (!order.empty() && order.front()->traits.kind == DriverKind::hardware) {
        const RegisteredDriver* first = order.front();
        while (peers < order.size()) {
          const RegisteredDriver* d = order[peers];
          const bool same =
              d->traits.kind == DriverKind::hardware &&
              (rate(first) > 0 ? rate(d) >= 0.9 * rate(first)
                               : rate(d) == 0 && d->traits.priority == first->traits.priority);
          if (!same) break;
          ++peers;
        }
      }
      per.buckets[b].drivers = std::move(order);
      per.buckets[b].peers = peers;
    }
    // Runs of neighbouring buckets with one order share a size range, so a
    // cached route is re-chosen only where the choice can change.
    per.by_size = false;
    for (std::size_t b = 0; b < kSizeBucketCount;) {
      std::size_t end = b + 1;
      while (end < kSizeBucketCount && per.buckets[end].drivers == per.buckets[b].drivers &&
             per.buckets[end].peers == per.buckets[b].peers)
        ++end;
      const SizeRange range{b == 0 ? 0 : kSizeBuckets[b],
                            end == kSizeBucketCount ? std::numeric_limits<std::size_t>::max()
                                                    : kSizeBuckets[end] - 1};
      for (std::size_t k = b; k < end; ++k) per.buckets[k].sizes = range;
      if (end != kSizeBucketCount) per.by_size = true;
      b = end;
    }
  }
}

}  // namespace cryptoaccel::detail
