#include "lanes.hpp"

#include <cerrno>
#include <cstring>
#include <thread>

#include "cryptoaccel/session.hpp"

namespace cryptoaccel::cryptodev {

LanedSession::LanedSession(const std::string& path, const Algorithm& algorithm,
                           std::span<const std::uint8_t> key)
    : path_(path), algorithm_(algorithm), key_(key) {
  int error = 0;
  auto device = Device::open(path_, error);
  if (device == nullptr)
    throw DriverFailure("cryptodev: cannot open " + path_ + ": " + std::strerror(-error));
  if (const int e = lanes_[0].create(std::move(device), algorithm.id, key_.span()); e != 0) {
    throw DriverFailure("cryptodev: " + path_ + " refused a " + std::string(algorithm.name) +
                        " session: " + std::strerror(-e));
  }
}

std::size_t LanedSession::open_lanes(std::size_t n) noexcept {
  for (std::size_t i = 1; i < n; ++i) {
    if (lanes_[i].valid()) continue;
    int error = 0;
    auto device = Device::open(path_, error);
    if (device == nullptr || lanes_[i].create(std::move(device), algorithm_.id, key_.span()) != 0)
      return i;
  }
  return n;
}

std::size_t LanedSession::process(std::span<Request> batch) noexcept {
  const std::size_t lanes = open_lanes(std::min(batch.size(), kMaxLanes));
  const auto serve = [&](std::size_t lane) noexcept {
    for (std::size_t i = lane; i < batch.size(); i += lanes)
      batch[i].status = run(lanes_[lane], batch[i]);
  };
  if (lanes <= 1) {
    serve(0);
    return batch.size();
  }
  std::array<std::thread, kMaxLanes> threads;
  std::size_t started = 1;
  try {
    for (; started < lanes; ++started) threads[started] = std::thread(serve, started);
  } catch (...) {
    // No thread: the calling thread serves the lanes that have none.
  }
  serve(0);
  for (std::size_t lane = 1; lane < lanes; ++lane) {
    if (lane < started)
      threads[lane].join();
    else
      serve(lane);
  }
  return batch.size();
}

ErrorCode status_from_errno(int negative_errno) noexcept {
  switch (negative_errno) {
    case 0:
      return ErrorCode::ok;
    case -EBADMSG:
      return ErrorCode::authentication_failed;
    default:
      // The framework checked every length against the capability, so any
      // refusal is this driver's: the dispatcher may retry elsewhere.
      return ErrorCode::driver_failure;
  }
}

}  // namespace cryptoaccel::cryptodev
