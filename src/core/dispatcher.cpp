#include "dispatcher.hpp"

#include <algorithm>
#include <cmath>
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

// Measured throughput by (driver, algorithm, bucket): of one request at a
// time, at each depth of requests in flight that was measured (the most of
// them: a device's rate when work queues up), and from one thread per CPU
// at once; the figure at the bucket's own size wins over others in it.
class Throughputs {
 public:
  explicit Throughputs(const Profile* profile) {
    if (profile == nullptr) return;
    for (const Measurement& m : profile->measurements) {
      const std::size_t bucket = size_bucket(m.size);
      Figure& f = figures_[{m.driver, index_of(m.algorithm), bucket}];
      if (m.workers > 1) {
        if (f.loaded == 0 || m.size == kSizeBuckets[bucket]) f.loaded = m.bytes_per_second;
      } else if (m.in_flight == 1) {
        if (f.single == 0 || m.size == kSizeBuckets[bucket]) f.single = m.bytes_per_second;
      } else {
        double& at_depth = f.by_depth[m.in_flight];
        if (at_depth == 0 || m.size == kSizeBuckets[bucket]) at_depth = m.bytes_per_second;
        if (m.in_flight > f.depth || (m.in_flight == f.depth && m.size == kSizeBuckets[bucket])) {
          f.depth = m.in_flight;
          f.queued = m.bytes_per_second;
        }
      }
    }
  }
  double of(const RegisteredDriver& d, std::size_t algorithm, std::size_t bucket) const {
    const auto it = figures_.find({d.name, algorithm, bucket});
    return it == figures_.end() ? 0 : it->second.single;
  }
  // From one thread per CPU at once (0: not measured).
  double loaded(const RegisteredDriver& d, std::size_t algorithm, std::size_t bucket) const {
    const auto it = figures_.find({d.name, algorithm, bucket});
    return it == figures_.end() ? 0 : it->second.loaded;
  }
  // Throughput with this many requests in a batch (0: not measured).
  const std::map<unsigned, double>* by_depth(const RegisteredDriver& d, std::size_t algorithm,
                                             std::size_t bucket) const {
    const auto it = figures_.find({d.name, algorithm, bucket});
    return it == figures_.end() ? nullptr : &it->second.by_depth;
  }
  // With requests queued: the in-flight figure, else the single one.
  double queued(const RegisteredDriver& d, std::size_t algorithm, std::size_t bucket) const {
    const auto it = figures_.find({d.name, algorithm, bucket});
    if (it == figures_.end()) return 0;
    return std::max(it->second.single, it->second.queued);
  }

 private:
  struct Figure {
    double single = 0, queued = 0, loaded = 0;
    unsigned depth = 0;
    std::map<unsigned, double> by_depth;  // in-flight depth -> throughput
  };
  std::map<std::tuple<std::string, std::size_t, std::size_t>, Figure> figures_;
};

// How many requests hardware may hold before the next one is better sent to
// software. A request that finds q ahead of it finishes after about
// 1/single + q/queued (per byte) on the device, against 1/software on a
// free CPU: it goes to software once that is sooner. Under `offload` the
// device keeps the request while its wait is within 1/share of software's
// time, the same allowance that puts it first in the order.
std::uint32_t busy_threshold(double single, double queued, double software, double share) {
  const double allowance = 1 / (software * share) - 1 / single;
  if (allowance <= 0) return 1;
  const double ahead = std::floor(allowance * queued) + 1;
  return ahead >= 65536 ? 65536 : static_cast<std::uint32_t>(ahead);
}

// Phase 1: the drivers that may serve algorithm `a` under `policy`.
std::vector<RegisteredDriver*> eligible_drivers(const Registry& registry, Policy policy,
                                                std::size_t a) {
  std::vector<RegisteredDriver*> eligible;
  for (const auto& d : registry.drivers()) {
    if (!d->traits.automatic || d->enabled[a] == nullptr) continue;
    if (policy == Policy::software && d->traits.kind == DriverKind::hardware) continue;
    eligible.push_back(d.get());
  }
  return eligible;
}

// Phase 2: one bucket's order. `rate(d)` is d's measured throughput there.
template <typename Rate>
std::vector<RegisteredDriver*> order_of(std::vector<RegisteredDriver*> order, Policy policy,
                                        double offload_share, Rate rate) {
  double best_software = 0;
  for (const RegisteredDriver* d : order)
    if (d->traits.kind == DriverKind::software) best_software = std::max(best_software, rate(d));
  // Offload: hardware that reaches the share of the best software (or
  // that was not measured against it) goes first.
  const auto offloads = [&](const RegisteredDriver* d) {
    if (policy != Policy::offload || d->traits.kind != DriverKind::hardware) return false;
    return rate(d) == 0 || best_software == 0 || rate(d) >= offload_share * best_software;
  };
  std::stable_sort(order.begin(), order.end(), [&](const auto* x, const auto* y) {
    if (offloads(x) != offloads(y)) return offloads(x);
    const bool mx = rate(x) > 0, my = rate(y) > 0;
    if (mx != my) return mx;                                 // measured first
    if (mx && rate(x) != rate(y)) return rate(x) > rate(y);  // then the faster
    const int rx = kind_rank(policy, x->traits.kind), ry = kind_rank(policy, y->traits.kind);
    if (rx != ry) return rx < ry;
    return x->traits.priority > y->traits.priority;
  });
  return order;
}

// Phase 3a: how many equivalent hardware drivers lead the order (the load
// is spread over them).
template <typename Rate>
std::size_t peers_at_head(const std::vector<RegisteredDriver*>& order, Rate rate) {
  std::size_t peers = 1;
  if (order.empty() || order.front()->traits.kind != DriverKind::hardware) return peers;
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
  return peers;
}

// Phase 3b: hardware first and software measured beside it: where the
// device's overflow goes under load.
Dispatcher::Overflow overflow_of(const std::vector<RegisteredDriver*>& order,
                                 const Throughputs& measured, std::size_t a, std::size_t b,
                                 Policy policy, double offload_share) {
  const auto rate = [&](const RegisteredDriver* d) { return measured.of(*d, a, b); };
  if (order.empty() || order.front()->traits.kind != DriverKind::hardware ||
      rate(order.front()) == 0)
    return {};
  const auto software = std::find_if(order.begin(), order.end(), [&](const auto* d) {
    return d->traits.kind == DriverKind::software && rate(d) > 0;
  });
  if (software == order.end()) return {};
  const double share = policy == Policy::offload ? offload_share : 1.0;
  const double device_loaded = measured.loaded(*order.front(), a, b),
               software_loaded = measured.loaded(**software, a, b);
  return {.software = *software,
          .at_in_flight = busy_threshold(rate(order.front()), measured.queued(*order.front(), a, b),
                                         rate(*software), share),
          .while_shared =
              device_loaded > 0 && software_loaded > 0 && device_loaded < share * software_loaded};
}

// Phase 3c: under `fastest`, a driver that gathers and, with a batch at
// least so deep, was measured faster than the head of the order is for one
// request. The shallowest such depth wins; ties go to the faster driver.
Dispatcher::Gather gather_of(const std::vector<RegisteredDriver*>& order,
                             const Throughputs& measured, std::size_t a, std::size_t b,
                             Policy policy) {
  Dispatcher::Gather best;
  if (policy != Policy::fastest || order.empty()) return best;
  const double head = measured.of(*order.front(), a, b);
  if (head == 0) return best;
  double best_rate = 0;
  for (RegisteredDriver* d : order) {
    if (!d->traits.gathers || d == order.front()) continue;
    const auto* depths = measured.by_depth(*d, a, b);
    if (depths == nullptr) continue;
    for (const auto& [depth, rate] : *depths) {
      if (rate <= head) continue;
      if (best.driver == nullptr || depth < best.from_depth ||
          (depth == best.from_depth && rate > best_rate)) {
        best = {d, depth};
        best_rate = rate;
      }
      break;  // the shallowest depth that wins, for this driver
    }
  }
  return best;
}

}  // namespace

void Dispatcher::build(const Registry& registry, Policy policy, const Profile* profile,
                       double offload_share) {
  policy_ = policy;
  offload_share_ = offload_share;
  profiled_ = profile != nullptr;
  const Throughputs measured(profile);
  for (std::size_t a = 0; a < kAlgorithmCount; ++a) {
    const std::vector<RegisteredDriver*> eligible = eligible_drivers(registry, policy, a);
    PerAlgorithm& per = order_[a];
    for (std::size_t b = 0; b < kSizeBucketCount; ++b) {
      const auto rate = [&](const RegisteredDriver* d) { return measured.of(*d, a, b); };
      Bucket& bucket = per.buckets[b];
      bucket.drivers = order_of(eligible, policy, offload_share, rate);
      bucket.peers = peers_at_head(bucket.drivers, rate);
      bucket.overflow = overflow_of(bucket.drivers, measured, a, b, policy, offload_share);
      bucket.gather = gather_of(bucket.drivers, measured, a, b, policy);
    }
    mark_same_order_ranges(per);
  }
}

// Phase 4: runs of neighbouring buckets with one order share a size range,
// so a cached route is re-chosen only where the choice can change.
void Dispatcher::mark_same_order_ranges(PerAlgorithm& per) {
  const auto same = [](const Bucket& x, const Bucket& y) {
    return x.drivers == y.drivers && x.peers == y.peers &&
           x.overflow.software == y.overflow.software &&
           x.overflow.at_in_flight == y.overflow.at_in_flight &&
           x.overflow.while_shared == y.overflow.while_shared && x.gather == y.gather;
  };
  per.by_size = false;
  for (std::size_t b = 0; b < kSizeBucketCount;) {
    std::size_t end = b + 1;
    while (end < kSizeBucketCount && same(per.buckets[end], per.buckets[b])) ++end;
    const SizeRange range{
        b == 0 ? 0 : kSizeBuckets[b],
        end == kSizeBucketCount ? std::numeric_limits<std::size_t>::max() : kSizeBuckets[end] - 1};
    for (std::size_t k = b; k < end; ++k) per.buckets[k].sizes = range;
    if (end != kSizeBucketCount) per.by_size = true;
    b = end;
  }
}

}  // namespace cryptoaccel::detail
