// What the kernel's CUSE does with an unrestricted ioctl, done in-process:
// sends the ioctl to the server's protocol, fetches the client memory each
// retry asks for, and copies the final answer to the declared output
// buffers. Memory is read and written with process_vm_readv/writev on our
// own process, so a pointer or length beyond mapped memory gives EFAULT, as
// the kernel's copy would. Retry pieces above 32 pages each way fail with
// ENOMEM, as the kernel's fuse_verify_ioctl_iov does. The server reaches
// the caller's memory as the CUSE server does (ThreadMemory on our own
// thread), or not at all when `memory` is false (an unprivileged server).
#pragma once

#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "devcrypto/protocol.hpp"

namespace cryptoaccel::test {

struct SimulatedIoctl {
  int result = 0;  // 0 or a negative errno
  int rounds = 0;  // how many times the server was called
  int deferred = 0;  // rounds handed from a "worker" to the deferred threads
};

inline bool copy_from_client(const devcrypto::ClientIov& v, std::uint8_t* to) {
  iovec local{to, v.len};
  iovec remote{reinterpret_cast<void*>(v.base), v.len};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(v.len);
}

inline bool copy_to_client(const devcrypto::ClientIov& v, const std::uint8_t* from) {
  iovec local{const_cast<std::uint8_t*>(from), v.len};
  iovec remote{reinterpret_cast<void*>(v.base), v.len};
  return process_vm_writev(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(v.len);
}

// `layout32`: the call of a 32-bit program (the kernel's FUSE_IOCTL_32BIT),
// whose pointers all lie below 4 GiB.
inline SimulatedIoctl simulate_ioctl(const devcrypto::Service& service, devcrypto::Client& client,
                                     unsigned long cmd, void* arg, std::uint32_t caller = 1,
                                     bool memory = true, bool layout32 = false) {
  SimulatedIoctl run;
  devcrypto::ThreadMemory own(static_cast<pid_t>(syscall(SYS_gettid)));
  std::vector<std::uint8_t> in;
  std::vector<devcrypto::ClientIov> out_iov;
  std::size_t out_size = 0;
  for (run.rounds = 1; run.rounds <= 8; ++run.rounds) {
    const devcrypto::IoctlCall call{.cmd = static_cast<unsigned>(cmd),
                                    .arg = reinterpret_cast<std::uintptr_t>(arg),
                                    .in = in,
                                    .out_size = out_size,
                                    .caller = caller,
                                    .memory = memory ? &own : nullptr,
                                    .shared_worker = true,
                                    .layout32 = layout32};
    devcrypto::IoctlReply r = devcrypto::handle_ioctl(service, client, call);
    // What the server's memory threads do with a deferred request: the
    // same call again, with the memory.
    if (r.kind == devcrypto::IoctlReply::Kind::defer) {
      ++run.deferred;
      devcrypto::IoctlCall again = call;
      again.shared_worker = false;
      r = devcrypto::handle_ioctl(service, client, again);
    }
    switch (r.kind) {
      case devcrypto::IoctlReply::Kind::defer:  // never twice
        run.result = -EIO;
        return run;
      case devcrypto::IoctlReply::Kind::error:
        run.result = -r.error;
        return run;
      case devcrypto::IoctlReply::Kind::retry: {
        // fuse_copy_ioctl_iovec: a compat caller's pieces must name 32-bit
        // addresses and lengths, or the ioctl fails with EIO.
        if (layout32)
          for (const auto* iov : {&r.in_iov, &r.out_iov})
            for (const auto& v : *iov)
              if (v.base > 0xffffffffu || v.len > 0xffffffffu) {
                run.result = -EIO;
                return run;
              }
        std::size_t total = 0, total_out = 0;
        for (const auto& v : r.in_iov) total += v.len;
        for (const auto& v : r.out_iov) total_out += v.len;
        if (total > 32 * 4096 || total_out > 32 * 4096) {
          run.result = -ENOMEM;
          return run;
        }
        in.assign(total, 0);
        std::size_t at = 0;
        for (const auto& v : r.in_iov) {
          if (!copy_from_client(v, in.data() + at)) {
            run.result = -EFAULT;
            return run;
          }
          at += v.len;
        }
        out_iov = r.out_iov;
        out_size = 0;
        for (const auto& v : out_iov) out_size += v.len;
        break;
      }
      case devcrypto::IoctlReply::Kind::done: {
        if (r.out.size() > out_size) {
          run.result = -EIO;
          return run;
        }
        std::size_t at = 0;
        for (const auto& v : out_iov) {
          if (at + v.len > r.out.size()) break;
          if (!copy_to_client(v, r.out.data() + at)) {
            run.result = -EFAULT;
            return run;
          }
          at += v.len;
        }
        run.result = 0;
        return run;
      }
    }
  }
  run.result = -EIO;  // the kernel, too, would not retry for ever
  return run;
}

}  // namespace cryptoaccel::test
