// The /dev/crypto ioctls as a CUSE server receives them. With unrestricted
// ioctls the kernel first sends only the command and the client's argument
// pointer; the server answers "retry" with the client memory it wants
// (in_iov) and will write (out_iov), and the kernel sends the ioctl again
// with those bytes. Every ioctl here takes two or three rounds:
//
//   1. nothing        -> retry: the struct itself
//   2. the struct     -> checks every length and pointer, then retry: the
//                        struct again plus every buffer it points to, and
//                        every output buffer (bounded by kMaxData)
//   3. all the input  -> re-reads the struct from this copy, checks that it
//                        still asks for exactly what was fetched, does the
//                        work and answers with the output bytes, which the
//                        kernel copies to the out_iov of round 2, in order.
//
// (CIOCFSESSION and CIOCGSESSINFO have no buffers and end in round 2.)
// The kernel copies the buffers, so a bad pointer or a `len` beyond the
// client's memory fails in the kernel with EFAULT and never reaches us.
//
// A round moves at most kMaxRoundBytes each way. A request whose input or
// output is larger ends in round 2 instead: the server reads the struct
// and the buffers from the caller's memory, checks the struct as in round
// 3, does the work and writes the output there (client_memory.hpp). On a
// thread that serves every client (`shared_worker`), such a request is
// answered `defer` before anything is read or changed, and so is CIOCKEY's
// private-key operation once its input is all there: it is handed to the
// threads of deferred_requests.hpp, which call again.
// Errors follow cryptodev-linux's ioctl.c (docs/devcrypto.md lists them).
// A 32-bit program's structs are smaller (cryptodev.hpp's Layout32): it is
// served by the same handlers instantiated for that layout, as the module
// serves it through its compat ioctls; its numbers from the 64-bit layout,
// and a 64-bit program's from the 32-bit one, are unknown commands.
// This file knows nothing of libfuse, so the unit tests drive it directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "client.hpp"
#include "client_memory.hpp"
#include "service.hpp"

namespace cryptoaccel::devcrypto {

struct IoctlCall {
  unsigned int cmd = 0;
  std::uint64_t arg = 0;             // the client's argument (a pointer)
  std::span<const std::uint8_t> in;  // the bytes of the in_iov asked for, concatenated
  std::size_t out_size = 0;          // the bytes the out_iov asked for
  std::uint32_t caller = 0;          // the client's thread (its tid), which all rounds share
  CallerMemory* memory = nullptr;    // the caller's memory; null: requests fit a round or fail
  bool shared_worker = false;         // answer `defer` to what may take long
  // A 32-bit program's call (FUSE_IOCTL_32BIT): its structs are laid out
  // as cryptodev::Layout32's, and so are its ioctl numbers.
  bool layout32 = false;
};

struct IoctlReply {
  // defer: the request needs the caller's memory; call again with
  // shared_worker false.
  enum class Kind { error, retry, done, defer } kind = Kind::error;
  int error = 0;                   // Kind::error: a positive errno
  std::vector<ClientIov> in_iov;   // Kind::retry
  std::vector<ClientIov> out_iov;  // Kind::retry
  std::vector<std::uint8_t> out;   // Kind::done: out_size bytes, or none
};

IoctlReply handle_ioctl(const Service& service, Client& client, const IoctlCall& call);

}  // namespace cryptoaccel::devcrypto
