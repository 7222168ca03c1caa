#include "client_memory.hpp"

#include <sys/uio.h>

#include <cerrno>
#include <climits>
#include <vector>

namespace cryptoaccel::devcrypto {
namespace {

enum class Direction { read, write };

int transfer(pid_t tid, std::span<const ClientIov> pieces, void* bytes, std::size_t size,
             Direction direction) {
  std::size_t total = 0;
  for (const ClientIov& v : pieces) total += v.len;
  if (total != size || pieces.size() > IOV_MAX) return EINVAL;  // a plan's own mistake
  if (size == 0) return 0;
  if (tid <= 0) return EMSGSIZE;  // the caller is not visible from our pid namespace
  std::vector<iovec> remote(pieces.size());
  for (std::size_t i = 0; i < pieces.size(); ++i)
    remote[i] = {reinterpret_cast<void*>(static_cast<std::uintptr_t>(pieces[i].base)),
                 pieces[i].len};
  const iovec local{bytes, size};
  const ssize_t moved = direction == Direction::read
                            ? process_vm_readv(tid, &local, 1, remote.data(), remote.size(), 0)
                            : process_vm_writev(tid, &local, 1, remote.data(), remote.size(), 0);
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

}  // namespace

int CallerMemory::read(std::span<const ClientIov> pieces, std::span<std::uint8_t> bytes) {
  return transfer(tid_, pieces, bytes.data(), bytes.size(), Direction::read);
}

int CallerMemory::write(std::span<const ClientIov> pieces, std::span<const std::uint8_t> bytes) {
  return transfer(tid_, pieces, const_cast<std::uint8_t*>(bytes.data()), bytes.size(),
                  Direction::write);
}

}  // namespace cryptoaccel::devcrypto
