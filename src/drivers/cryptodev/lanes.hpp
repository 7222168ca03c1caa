// Several requests of one session in flight. /dev/crypto ioctls are
// synchronous: a thread waits in each until its request is done. A batch is
// therefore spread over up to kMaxLanes lanes, each a file descriptor of its
// own with its own cryptodev session for the same key, each driven by its own
// thread; the device (or a CUSE server's worker threads) then has that many
// requests at once. A single request runs on the caller's thread, on lane 0.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cryptoaccel/driver/driver.hpp"
#include "device.hpp"

namespace cryptoaccel::cryptodev {

inline constexpr std::size_t kMaxLanes = 4;

// The largest cipher or AEAD request sent in one ioctl. A CUSE server moves
// an ioctl's data in one piece, and the kernel bounds that piece (32 pages);
// requests above this go to another driver, or are hashed in pieces.
inline constexpr std::size_t kMaxRequest = 64 * 1024;

class LanedSession : public DriverSession {
 public:
  // Opens lane 0 on `path`; throws DriverFailure when the device refuses.
  LanedSession(const std::string& path, const Algorithm& algorithm,
               std::span<const std::uint8_t> key);
  ~LanedSession() override = default;

  std::size_t process(std::span<Request> batch) noexcept override;
  void process_one(Request& request) noexcept override { request.status = run(lanes_[0], request); }

 protected:
  // Runs one request on one lane's session.
  virtual ErrorCode run(const DeviceSession& lane, Request& request) noexcept = 0;
  const DeviceSession& lane0() const noexcept { return lanes_[0]; }
  const Algorithm& algorithm() const noexcept { return algorithm_; }
  std::span<const std::uint8_t> key() const noexcept { return key_.span(); }

 private:
  // Lanes [0, n) opened as far as the device allows; returns how many are.
  std::size_t open_lanes(std::size_t n) noexcept;

  std::string path_;
  const Algorithm& algorithm_;
  SecretBytes key_;  // to open more lanes
  std::array<DeviceSession, kMaxLanes> lanes_;
};

// What a failed ioctl means for a request.
ErrorCode status_from_errno(int negative_errno) noexcept;

}  // namespace cryptoaccel::cryptodev
