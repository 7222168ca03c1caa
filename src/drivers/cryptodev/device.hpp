// One open /dev/crypto and the sessions made on it. A cryptodev session
// belongs to the file descriptor that created it, so each descriptor carries
// its own sessions. Functions return 0 or a negative errno, as the kernel
// does; nothing here throws.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "../../abi/cryptodev.hpp"
#include "cryptoaccel/algorithm.hpp"

namespace cryptoaccel::cryptodev {

// The device this driver uses: $CRYPTOACCEL_CRYPTODEV_DEVICE, else /dev/crypto.
std::string device_path();

// An open /dev/crypto.
class Device {
 public:
  // Null with the negative errno in `error` when the device cannot be opened.
  static std::shared_ptr<Device> open(const std::string& path, int& error) noexcept;
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  int fd() const noexcept { return fd_; }

 private:
  explicit Device(int fd) : fd_(fd) {}
  int fd_;
};

// Sends one ioctl; 0 or the negative errno.
int device_ioctl(const Device& device, unsigned long request, void* arg) noexcept;

// A cryptodev session on one device, freed (CIOCFSESSION) when destroyed.
class DeviceSession {
 public:
  DeviceSession() = default;
  // Creates a session for `id` with `key` (the cipher key, or the HMAC key);
  // returns 0 or the negative errno.
  int create(std::shared_ptr<Device> device, AlgorithmId id,
             std::span<const std::uint8_t> key) noexcept;
  DeviceSession(DeviceSession&& other) noexcept;
  DeviceSession& operator=(DeviceSession&& other) noexcept;
  ~DeviceSession();

  bool valid() const noexcept { return device_ != nullptr; }
  std::uint32_t id() const noexcept { return ses_; }
  const Device& device() const noexcept { return *device_; }
  const std::shared_ptr<Device>& shared_device() const noexcept { return device_; }
  int info(SessionInfoOp& out) const noexcept;

 private:
  void reset() noexcept;
  std::shared_ptr<Device> device_;
  std::uint32_t ses_ = 0;
};

// A user-space pointer as this program's layout of the ABI carries it
// (64 or 32 bits: cryptodev.hpp's NativeLayout).
inline std::uintptr_t address(const void* p) noexcept {
  return reinterpret_cast<std::uintptr_t>(p);
}

}  // namespace cryptoaccel::cryptodev
