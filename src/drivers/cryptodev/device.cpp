#include "device.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace cryptoaccel::cryptodev {

std::string device_path() {
  // Never from the caller of a set-user-ID program: it would open any path
  // read-write as its owner and send it ioctls.
  const char* path = secure_getenv("CRYPTOACCEL_CRYPTODEV_DEVICE");
  return path != nullptr && *path != '\0' ? path : "/dev/crypto";
}

std::shared_ptr<Device> Device::open(const std::string& path, int& error) noexcept {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    error = -errno;
    return nullptr;
  }
  error = 0;
  try {
    return std::shared_ptr<Device>(new Device(fd));  // private constructor
  } catch (...) {
    ::close(fd);
    error = -ENOMEM;
    return nullptr;
  }
}

Device::~Device() {
  ::close(fd_);
}

int device_ioctl(const Device& device, unsigned long request, void* arg) noexcept {
  // A signal may interrupt a request that waits in a CUSE server: ask again.
  int rc;
  do {
    rc = ::ioctl(device.fd(), request, arg);
  } while (rc < 0 && errno == EINTR);
  return rc < 0 ? -errno : 0;
}

int DeviceSession::create(std::shared_ptr<Device> device, AlgorithmId id,
                          std::span<const std::uint8_t> key) noexcept {
  reset();
  const auto ids = ids_of(id);
  if (!ids) return -EINVAL;
  SessionOp op{};
  op.cipher = ids->cipher;
  op.mac = ids->mac;
  if (ids->cipher != 0) {
    op.keylen = static_cast<std::uint32_t>(key.size());
    op.key = address(key.data());
  } else if (algorithm(id).kind == AlgorithmKind::mac) {
    op.mackeylen = static_cast<std::uint32_t>(key.size());
    op.mackey = address(key.data());
  }
  if (const int e = device_ioctl(*device, kCiocGSession, &op); e != 0) return e;
  device_ = std::move(device);
  ses_ = op.ses;
  return 0;
}

DeviceSession::DeviceSession(DeviceSession&& other) noexcept
    : device_(std::move(other.device_)), ses_(other.ses_) {
  other.device_ = nullptr;
}

DeviceSession& DeviceSession::operator=(DeviceSession&& other) noexcept {
  if (this != &other) {
    reset();
    device_ = std::move(other.device_);
    ses_ = other.ses_;
    other.device_ = nullptr;
  }
  return *this;
}

DeviceSession::~DeviceSession() {
  reset();
}

void DeviceSession::reset() noexcept {
  if (device_ != nullptr) {
    std::uint32_t ses = ses_;
    device_ioctl(*device_, kCiocFSession, &ses);
    device_ = nullptr;
  }
}

int DeviceSession::info(SessionInfoOp& out) const noexcept {
  out = SessionInfoOp{};
  out.ses = ses_;
  return device_ioctl(*device_, kCiocGSessInfo, &out);
}

}  // namespace cryptoaccel::cryptodev
