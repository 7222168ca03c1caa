#include "client_memory.hpp"

#include <sys/uio.h>

#include <array>
#include <cerrno>

namespace cryptoaccel::devcrypto {

int move_client_bytes(pid_t tid, std::span<const ClientIov> pieces, void* bytes, std::size_t size,
                      MemoryDirection direction) {
  if (pieces.size() > kMaxMemoryPieces) return EINVAL;  // a plan's own mistake
  std::array<iovec, kMaxMemoryPieces> remote{};
  std::size_t total = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    remote[i] = {reinterpret_cast<void*>(static_cast<std::uintptr_t>(pieces[i].base)),
                 pieces[i].len};
    total += pieces[i].len;
  }
  if (total != size) return EINVAL;
  if (size == 0) return 0;
  if (tid <= 0) return EMSGSIZE;  // the caller is not visible from our pid namespace
  const iovec local{bytes, size};
  const ssize_t moved =
      direction == MemoryDirection::read
          ? process_vm_readv(tid, &local, 1, remote.data(), pieces.size(), 0)
          : process_vm_writev(tid, &local, 1, remote.data(), pieces.size(), 0);
  if (moved == static_cast<ssize_t>(size)) return 0;
  // A short count: a piece was not mapped (or not writable) at some point.
  if (moved >= 0) return EFAULT;
  switch (errno) {
    case EFAULT:
    case ENOMEM:
      return errno;
    default:  // EPERM, ESRCH, ENOSYS: no way to the caller's memory
      return EMSGSIZE;
  }
}

}  // namespace cryptoaccel::devcrypto
