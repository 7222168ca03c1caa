// The client's memory reached directly, for a request too large for the
// rounds of a CUSE ioctl (protocol.hpp): the kernel moves at most
// kMaxRoundBytes each way in a round, and cryptodev-linux serves any length
// (it pins the client's pages). Above a round, the server reads the inputs
// from the calling thread's memory and writes the outputs there itself.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>

#include "client.hpp"

namespace cryptoaccel::devcrypto {

// process_vm_readv/writev on the thread that made the ioctl (its tid from
// the request's header, in the server's pid namespace). That thread cannot
// go away meanwhile: once the server has read a FUSE request, the caller
// waits for the answer uninterruptibly, SIGKILL included (the kernel's
// request_wait_answer), so its tid is not reused and an execve() by another
// thread waits for it. The kernel checks the server's right to the memory
// as for ptrace: root may; an unprivileged server gets EMSGSIZE. (The unit
// tests use it on their own thread.)
class CallerMemory {
 public:
  explicit CallerMemory(pid_t tid) : tid_(tid) {}
  // Copies the pieces, in order, into `bytes` (exactly their total size).
  // 0; EFAULT when a piece is not the client's readable memory; EMSGSIZE
  // when the server may not reach the client's memory at all (the request
  // is then too large for this server, as without direct access).
  int read(std::span<const ClientIov> pieces, std::span<std::uint8_t> bytes);
  // Copies `bytes` to the pieces, in order; errors as read(). A fault part
  // way leaves what came before it written, as the kernel's copy does.
  int write(std::span<const ClientIov> pieces, std::span<const std::uint8_t> bytes);

 private:
  pid_t tid_;
};

}  // namespace cryptoaccel::devcrypto
