// Binding and keying a transform socket, shared by the session types.
#pragma once

#include <cstring>
#include <string>

#include "cryptoaccel/error.hpp"
#include "kernel_layer.hpp"

namespace cryptoaccel::afalg {

inline std::string errno_text(int negative_errno) {
  return std::strerror(-negative_errno);
}

// A transform socket bound to `driver` and keyed; throws on failure.
inline Fd keyed_transform(SocketType type, const std::string& driver,
                          std::span<const std::uint8_t> key, bool keyed) {
  int error = 0;
  Fd transform = bind_transform(type, driver, error);
  if (!transform.valid())
    throw DriverFailure("afalg: cannot bind " + std::string(to_string(type)) + " '" + driver +
                        "': " + errno_text(error));
  if (keyed) {
    if (const int e = set_key(transform, key); e != 0)
      throw InvalidKey("afalg: '" + driver + "' refused the key: " + errno_text(e));
  }
  return transform;
}

// A session's operation socket: accepted on first use, dropped after a
// failed request (it may hold half of one) and accepted afresh.
class OperationSocket {
 public:
  explicit OperationSocket(const Fd& transform) : transform_(transform) {}
  // Null when the kernel refuses a new operation socket.
  const Fd* get() noexcept {
    if (!socket_.valid()) {
      int error = 0;
      socket_ = accept_operation(transform_, error);
      if (error != 0) return nullptr;
    }
    return &socket_;
  }
  void drop() noexcept { socket_ = Fd(); }

 private:
  const Fd& transform_;
  Fd socket_;
};

}  // namespace cryptoaccel::afalg
