// The dispatcher: for each request, which drivers to try, in order. The first
// is the choice; the rest are the fallbacks for a driver failure.
//
// With a profile from `cryptoaccel calibrate`, the order depends on the
// request's size bucket (profile.hpp): `fastest` puts the highest measured
// throughput first, `offload` puts first the hardware that reaches a share of
// the best software throughput, `software` keeps software only. Drivers the
// profile did not measure come after the measured ones, in the static order.
//
// Without a profile the order is the conservative static default, the same
// for every size: software before hardware under `fastest` (hardware loses on
// small requests on every machine the seeds measured), hardware first under
// `offload`, software only under `software`; within a kind, higher priority
// first. Drivers that are not `automatic` (null) are never chosen unless
// pinned; quarantined drivers are skipped while another can serve. Where
// two or more equivalent hardware instances lead the order, each choice goes
// to the one with the least outstanding work (peers()).
//
// A profile measures each driver alone. When several threads send work to
// one device at once, it queues them, while software runs on every CPU: so
// where hardware leads the order and software was measured too, overflow()
// says how many requests the device may already hold before the next one
// finishes sooner on software, which then takes the device's overflow
// (docs/dispatch.md, "Under load").
#pragma once

#include <array>
#include <limits>
#include <span>
#include <vector>

#include "cryptoaccel/framework.hpp"
#include "cryptoaccel/profile.hpp"
#include "registry.hpp"

namespace cryptoaccel::detail {

class Dispatcher {
 public:
  // Orders the drivers for every algorithm and size bucket: the eligible
  // drivers, each bucket's order, the peers and overflow at its head, and
  // the size ranges that share an order (the four phases in dispatcher.cpp).
  void build(const Registry& registry, Policy policy, const Profile* profile, double offload_share);

  // Candidates for a request of `size` bytes, in order of preference.
  std::span<RegisteredDriver* const> candidates(AlgorithmId id, std::size_t size) const noexcept {
    const PerAlgorithm& a = order_[index_of(id)];
    return a.buckets[a.by_size ? size_bucket(size) : 0].drivers;
  }

  // How many drivers at the head of candidates(id, size) are equivalent
  // hardware instances (the same kind and, measured, within 10% of the
  // first's throughput; unmeasured, the same priority): the load is spread
  // over them. 1 when there is nothing to spread.
  std::size_t peers(AlgorithmId id, std::size_t size) const noexcept {
    const PerAlgorithm& a = order_[index_of(id)];
    return a.buckets[a.by_size ? size_bucket(size) : 0].peers;
  }

  // The sizes that get the same order as `size`: a route chosen for one
  // request serves every request in this range.
  SizeRange same_order(AlgorithmId id, std::size_t size) const noexcept {
    const PerAlgorithm& a = order_[index_of(id)];
    if (!a.by_size) return {0, std::numeric_limits<std::size_t>::max()};
    return a.buckets[size_bucket(size)].sizes;
  }

  // Where hardware leads candidates(id, size): the software driver that
  // takes a request once the hardware holds `at_in_flight` requests
  // already (its load.in_flight). {nullptr, 0} where there is no such
  // choice (software leads, or a figure is missing).
  // `while_shared`: measured from one thread per CPU, the software
  // serves more in all than the device (times the offload share), so while
  // other threads use the device too, all of the work goes to software.
  struct Overflow {
    RegisteredDriver* software = nullptr;
    std::uint32_t at_in_flight = 0;
    bool while_shared = false;
  };
  Overflow overflow(AlgorithmId id, std::size_t size) const noexcept {
    const PerAlgorithm& a = order_[index_of(id)];
    return a.buckets[a.by_size ? size_bucket(size) : 0].overflow;
  }

  // Where a driver that gathers (mb) beats the head of candidates() once a
  // batch gives it `from_depth` requests or more of this size range (as
  // calibrated; `fastest` only): that driver and that depth. None without a
  // profile that measured it so.
  struct Gather {
    RegisteredDriver* driver = nullptr;
    unsigned from_depth = 0;
    bool operator==(const Gather&) const = default;
  };
  Gather gather(AlgorithmId id, std::size_t size) const noexcept {
    const PerAlgorithm& a = order_[index_of(id)];
    return a.buckets[a.by_size ? size_bucket(size) : 0].gather;
  }

  Policy policy() const noexcept { return policy_; }
  double offload_share() const noexcept { return offload_share_; }
  bool profiled() const noexcept { return profiled_; }

 private:
  struct Bucket {
    std::vector<RegisteredDriver*> drivers;
    std::size_t peers = 1;
    Overflow overflow;
    Gather gather;
    SizeRange sizes;  // the run of neighbouring buckets with this same order
  };
  struct PerAlgorithm {
    std::array<Bucket, kSizeBucketCount> buckets;
    bool by_size = false;  // do the buckets differ at all?
  };
  static void mark_same_order_ranges(PerAlgorithm& per);

  Policy policy_ = Policy::fastest;
  double offload_share_ = 0.5;
  bool profiled_ = false;
  std::array<PerAlgorithm, kAlgorithmCount> order_;
};

// Does `capability` cover this request's lengths?
inline bool covers(const Capability& capability, const Request& request) noexcept {
  return request.in.size() <= capability.max_request &&
         (capability.operations & operation_bit(request.op)) != 0 &&
         (request.in.size() & (capability.input_multiple - 1)) == 0 &&
         request.aad.size() <= capability.max_aad &&
         capability.iv_sizes.contains(request.iv.size()) &&
         (request.tag.empty() || capability.tag_sizes.contains(request.tag.size()));
}

// Does `capability` cover every request of its algorithm that passed
// check_request, up to its max_request and max_aad? Then a batch's requests
// need only those two lengths compared: at 64 bytes the full check per
// request cost a multi-buffer burst of 16 several per cent.
inline bool covers_every_checked(const Capability& capability, const Algorithm& a) noexcept {
  const auto within = [](SizeRange inner, SizeRange outer) {
    return inner.min >= outer.min && inner.max <= outer.max;
  };
  const bool multiple_kept =
      capability.input_multiple == 1 ||
      (a.kind == AlgorithmKind::cipher && a.input_multiple % capability.input_multiple == 0);
  return multiple_kept && capability.operations == kEveryOperation &&
         within(a.iv_sizes, capability.iv_sizes) &&
         (a.kind != AlgorithmKind::aead || within(a.tag_sizes, capability.tag_sizes));
}

}  // namespace cryptoaccel::detail
