// The dispatcher: for each request, which drivers to try, in order. The first
// is the choice; the rest are the fallbacks for a driver failure.
//
// Until `cryptoaccel calibrate` provides measurements, the order is the
// conservative static default: software before hardware under `fastest`
// (hardware loses on small requests on every machine the seeds measured),
// hardware first under `offload`, software only under `software`; within a
// kind, higher priority first. Drivers that are not `automatic` (null) are
// never chosen unless pinned.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "cryptoaccel/framework.hpp"
#include "registry.hpp"

namespace cryptoaccel::detail {

class Dispatcher {
 public:
  void build(const Registry& registry, Policy policy);

  // Candidates for an algorithm, in order of preference.
  std::span<RegisteredDriver* const> candidates(AlgorithmId id) const noexcept {
    return order_[index_of(id)];
  }

  Policy policy() const noexcept { return policy_; }

 private:
  Policy policy_ = Policy::fastest;
  std::array<std::vector<RegisteredDriver*>, kAlgorithmCount> order_;
};

// Does `capability` cover this request's lengths?
inline bool covers(const Capability& capability, const Request& request) noexcept {
  return request.in.size() <= capability.max_request &&
         capability.iv_sizes.contains(request.iv.size()) &&
         (request.tag.empty() || capability.tag_sizes.contains(request.tag.size()));
}

}  // namespace cryptoaccel::detail
