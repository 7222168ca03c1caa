// Several requests of one session in the kernel at once. Each request in
// flight needs its own operation socket (the kernel keeps one request's data
// and IV per socket), so a session holds a small pool of them, accepted on
// first use; the requests of a batch are all sent first, then their outputs
// are read back through one AIO submission, which lets an asynchronous
// kernel driver work on all of them together.
#pragma once

#include <array>
#include <cstddef>
#include <span>

#include "aio.hpp"
#include "cryptoaccel/request.hpp"
#include "kernel_layer.hpp"

namespace cryptoaccel::afalg {

// Requests one session keeps in the kernel at once (and operation sockets
// it may hold): enough to keep a device queue busy, few enough file
// descriptors per session.
inline constexpr std::size_t kMaxInFlight = 8;

// A request that has been sent on its slot's socket and waits for its output.
struct PendingRead {
  Request* request = nullptr;
  std::size_t slot = 0;
  std::array<iovec, 4> out{};  // where the output goes (room for one more part)
  std::size_t parts = 0;
};

class InFlight {
 public:
  explicit InFlight(const Fd& transform) : transform_(transform) {}

  // The operation socket of `slot` (< kMaxInFlight), accepted on first use;
  // null when the kernel refuses one.
  const Fd* socket(std::size_t slot) noexcept;
  // Closes a slot's socket: after a failure it may hold half a request.
  void drop(std::size_t slot) noexcept { sockets_[slot] = Fd(); }
  // Closes every socket (the kernel refuses option changes while any is open).
  void drop_all() noexcept;

  // Reads the output of each pending request and sets its status; a failed
  // slot is dropped. One request is read directly; several go through AIO
  // together (one by one when AIO is unavailable).
  void complete(std::span<PendingRead> pending) noexcept;

 private:
  std::size_t read_together(std::span<PendingRead> pending) noexcept;
  void finish(PendingRead& p, int error) noexcept;

  const Fd& transform_;
  std::array<Fd, kMaxInFlight> sockets_;
  AioContext aio_;
  bool aio_unavailable_ = false;
};

}  // namespace cryptoaccel::afalg
