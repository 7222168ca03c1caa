// The AF_ALG kernel interface: binding a transform socket, setting its key,
// accepting operation sockets, and moving one request through one. The key
// lives on the bound (transform) socket; each request in flight needs its own
// accepted (operation) socket. Functions return 0 or a negative errno, as
// the kernel does; nothing here throws.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <span>
#include <string_view>

#include "cryptoaccel/error.hpp"
#include "crypto_names.hpp"

namespace cryptoaccel::kernel {

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  ~Fd();
  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  int release() noexcept;

 private:
  int fd_ = -1;
};

// Whether this kernel offers AF_ALG at all; 0 or the negative errno of socket().
int probe_af_alg() noexcept;

// A transform socket bound to `name` (a generic or a driver name), or the
// negative errno in `error`.
Fd bind_transform(SocketType type, std::string_view name, int& error) noexcept;

int set_key(const Fd& transform, std::span<const std::uint8_t> key) noexcept;
int set_auth_size(const Fd& transform, unsigned tag_size) noexcept;
Fd accept_operation(const Fd& transform, int& error) noexcept;

// Sends one cipher/AEAD request: operation, IV, AAD length (AEAD), and the
// data from `iov`. `more` keeps the request open (MSG_MORE).
int send_request(const Fd& operation, bool encrypt, std::span<const std::uint8_t> iv,
                 const std::uint32_t* assoc_len, std::span<const iovec> iov, bool more) noexcept;

// Sends data only (hash updates, later parts of a request).
int send_data(const Fd& operation, std::span<const iovec> iov, bool more) noexcept;

// Reads exactly the bytes `iov` describes; 0 or a negative errno.
int receive(const Fd& operation, std::span<const iovec> iov) noexcept;

// What a request's failure means for its status.
ErrorCode status_from_errno(int negative_errno) noexcept;

}  // namespace cryptoaccel::kernel
