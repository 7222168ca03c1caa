#include "parallel_ioctls.hpp"

#include <cerrno>
#include <cstring>
#include <thread>

#include "cryptoaccel/session.hpp"

namespace cryptoaccel::cryptodev {

ParallelIoctlSession::ParallelIoctlSession(const std::string& path, const Algorithm& algorithm,
                                           std::span<const std::uint8_t> key)
    : path_(path), algorithm_(algorithm), key_(key) {
  int error = 0;
  auto device = Device::open(path_, error);
  if (device == nullptr)
    throw DriverFailure("cryptodev: cannot open " + path_ + ": " + std::strerror(-error));
  if (const int e = device_sessions_[0].create(std::move(device), algorithm.id, key_.span());
      e != 0) {
    throw DriverFailure("cryptodev: " + path_ + " refused a " + std::string(algorithm.name) +
                        " session: " + std::strerror(-e));
  }
}

std::size_t ParallelIoctlSession::open_device_sessions(std::size_t n) noexcept {
  for (std::size_t i = 1; i < n; ++i) {
    if (device_sessions_[i].valid()) continue;
    int error = 0;
    auto device = Device::open(path_, error);
    if (device == nullptr ||
        device_sessions_[i].create(std::move(device), algorithm_.id, key_.span()) != 0)
      return i;
  }
  return n;
}

std::size_t ParallelIoctlSession::process(std::span<Request> batch) noexcept {
  const std::size_t device_sessions =
      open_device_sessions(std::min(batch.size(), kMaxParallelIoctls));
  const auto serve = [&](std::size_t device_session) noexcept {
    for (std::size_t i = device_session; i < batch.size(); i += device_sessions)
      batch[i].status = run(device_sessions_[device_session], batch[i]);
  };
  if (device_sessions <= 1) {
    serve(0);
    return batch.size();
  }
  std::array<std::thread, kMaxParallelIoctls> threads;
  std::size_t started = 1;
  try {
    for (; started < device_sessions; ++started) threads[started] = std::thread(serve, started);
  } catch (...) {
    // No thread: the calling thread serves the device sessions that have none.
  }
  serve(0);
  for (std::size_t device_session = 1; device_session < device_sessions; ++device_session) {
    if (device_session < started)
      threads[device_session].join();
    else
      serve(device_session);
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
