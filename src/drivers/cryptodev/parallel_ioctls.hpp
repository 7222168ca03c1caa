// Several requests of one session in flight. /dev/crypto ioctls are
// synchronous: a thread waits in each until its request is done. A batch is
// therefore spread over up to kMaxParallelIoctls device sessions for the same
// key, each on a file descriptor of its own and driven by a thread of its
// own; the device (or a CUSE server's worker threads) then has that many
// requests at once. A single request runs on the caller's thread, on the
// first device session.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cryptoaccel/driver/driver.hpp"
#include "device.hpp"

namespace cryptoaccel::cryptodev {

inline constexpr std::size_t kMaxParallelIoctls = 4;

// The largest cipher or AEAD request sent in one ioctl. A CUSE server moves
// an ioctl's data in one piece, and the kernel bounds that piece (32 pages);
// requests above this go to another driver, or are hashed in pieces.
inline constexpr std::size_t kMaxRequest = 64 * 1024;

class ParallelIoctlSession : public DriverSession {
 public:
  // Opens the first device session on `path`; throws DriverFailure when the
  // device refuses.
  ParallelIoctlSession(const std::string& path, const Algorithm& algorithm,
               std::span<const std::uint8_t> key);
  ~ParallelIoctlSession() override = default;

  std::size_t process(std::span<Request> batch) noexcept override;
  void process_one(Request& request) noexcept override { request.status = run(device_sessions_[0], request); }

 protected:
  // Runs one request on one of the device sessions.
  virtual ErrorCode run(const DeviceSession& device_session, Request& request) noexcept = 0;
  const DeviceSession& first_device_session() const noexcept { return device_sessions_[0]; }
  const Algorithm& algorithm() const noexcept { return algorithm_; }
  std::span<const std::uint8_t> key() const noexcept { return key_.span(); }

 private:
  // Device sessions [0, n) opened as far as the device allows; returns how many are.
  std::size_t open_device_sessions(std::size_t n) noexcept;

  std::string path_;
  const Algorithm& algorithm_;
  SecretBytes key_;  // to open more device sessions
  std::array<DeviceSession, kMaxParallelIoctls> device_sessions_;
};

// What a failed ioctl means for a request.
ErrorCode status_from_errno(int negative_errno) noexcept;

}  // namespace cryptoaccel::cryptodev
