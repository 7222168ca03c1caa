// One session of the mb driver: a key schedule, and the gatherers of its
// route that every session of that algorithm shares.
#pragma once

#include <memory>

#include "cryptoaccel/driver/driver.hpp"
#include "gatherer.hpp"
#include "key_schedule.hpp"

namespace cryptoaccel::mb {

// The gatherers of one route: one per direction (a digest uses `encrypt`'s).
struct RouteGatherers {
  std::unique_ptr<Gatherer> encrypt, decrypt;
  Gatherer& for_operation(Operation op) { return op == Operation::decrypt ? *decrypt : *encrypt; }
};

std::unique_ptr<DriverSession> open_mb_session(const Route& route, RouteGatherers& gatherers,
                                               std::span<const std::uint8_t> key);

}  // namespace cryptoaccel::mb
