// The client's memory reached directly, for a request too large for the
// rounds of a CUSE ioctl (protocol.hpp): the kernel moves at most
// kMaxRoundBytes each way in a round, and cryptodev-linux serves any length
// (it pins the client's pages). Above a round, the server reads the inputs
// from the calling thread's memory and writes the outputs there itself.
//
// The server never does so on a thread of its own: a page of the client's
// may be a file of the client's own FUSE mount whose reads never answer,
// and whoever touches it sleeps in the kernel until that daemon answers or
// dies, deaf to every signal. So the copying is done by processes of their
// own (memory_copiers.hpp), given up on a deadline, and the requests that
// need it are served off the threads that serve everyone else
// (deferred_requests.hpp).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "client.hpp"

namespace cryptoaccel::devcrypto {

// The most pieces one request reads or writes (CIOCAUTHCRYPT's plan has 5
// inputs and 4 outputs; a fetch writes the struct and a request's outputs).
inline constexpr std::size_t kMaxMemoryPieces = 16;

enum class MemoryDirection : std::uint32_t { read, write };

// process_vm_readv/writev of the thread `tid` (in the caller's pid
// namespace), `bytes` being exactly the pieces' total. Allocates nothing,
// so a forked copier may call it. 0; EFAULT when a piece is not the
// client's readable (or writable) memory, and a write that faults part way
// leaves what came before written, as the kernel's copy does; EMSGSIZE
// when the memory may not be reached at all (the request is then too large
// for this server, as without direct access); EINVAL for a plan of more
// than kMaxMemoryPieces pieces or whose sizes do not add up.
int move_client_bytes(pid_t tid, std::span<const ClientIov> pieces, void* bytes, std::size_t size,
                      MemoryDirection direction);

// One request's way to its caller's memory.
class CallerMemory {
 public:
  virtual ~CallerMemory() = default;
  // Copies the pieces, in order, into `bytes` (exactly their total size):
  // 0 or an errno, those of move_client_bytes and of the implementation.
  virtual int read(std::span<const ClientIov> pieces, std::span<std::uint8_t> bytes) = 0;
  // Copies `bytes` to the pieces, in order; errors as read().
  virtual int write(std::span<const ClientIov> pieces, std::span<const std::uint8_t> bytes) = 0;
};

// The calling thread copies itself: for the unit tests, which reach their
// own memory. The kernel checks the right to it as for ptrace: root may; an
// unprivileged process gets EMSGSIZE.
class ThreadMemory final : public CallerMemory {
 public:
  explicit ThreadMemory(pid_t tid) : tid_(tid) {}
  int read(std::span<const ClientIov> pieces, std::span<std::uint8_t> bytes) override {
    return move_client_bytes(tid_, pieces, bytes.data(), bytes.size(), MemoryDirection::read);
  }
  int write(std::span<const ClientIov> pieces, std::span<const std::uint8_t> bytes) override {
    return move_client_bytes(tid_, pieces, const_cast<std::uint8_t*>(bytes.data()), bytes.size(),
                             MemoryDirection::write);
  }

 private:
  pid_t tid_;
};

}  // namespace cryptoaccel::devcrypto
