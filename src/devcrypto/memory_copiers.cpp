#include "memory_copiers.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <system_error>

namespace cryptoaccel::devcrypto {
namespace {

using Clock = std::chrono::steady_clock;

// glibc 2.36's <sys/pidfd.h> declares these without C linkage for C++.
int pidfd_open(pid_t pid, unsigned flags) {
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, flags));
}
int pidfd_send_signal(int pidfd, int sig, siginfo_t* info, unsigned flags) {
  return static_cast<int>(::syscall(SYS_pidfd_send_signal, pidfd, sig, info, flags));
}

// What the server asks a copier, and its answer: fixed-size messages on a
// SOCK_SEQPACKET socket.
struct Command {
  MemoryDirection direction;
  std::int32_t tid;
  std::uint32_t count;
  std::uint64_t size;
  ClientIov pieces[kMaxMemoryPieces];
};
struct Answer {
  std::int32_t error;
};

// Idle copiers kept for the next transfers; more are ended when they return.
constexpr std::size_t kIdleCopiers = 8;
// How long the server waits for the factory to make a copier.
constexpr std::chrono::milliseconds kSpawnTimeout{2000};

// 0 once `fd` is readable (or closed); ETIMEDOUT after `timeout`;
// ECANCELED once `stop_fd` is.
int wait_readable(int fd, int stop_fd, std::chrono::milliseconds timeout) {
  const Clock::time_point until = Clock::now() + timeout;
  pollfd fds[2] = {{fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now());
    const int n = ::poll(fds, 2, static_cast<int>(std::max<long long>(left.count(), 0)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ECANCELED;
    if (fds[1].revents != 0) return ECANCELED;
    if (n > 0) return 0;
    if (Clock::now() >= until) return ETIMEDOUT;
  }
}

// Everything below until the class runs in forked processes: system calls
// only (the process that forked may have had other threads, and a lock
// they held is held for ever in the child), then _exit.

[[noreturn]] void run_copier(int socket, int staging_fd) {
  void* staging =
      ::mmap(nullptr, kMaxTransferBytes, PROT_READ | PROT_WRITE, MAP_SHARED, staging_fd, 0);
  ::close(staging_fd);
  if (staging == MAP_FAILED) ::_exit(1);
  for (;;) {
    Command command;
    const ssize_t got = ::recv(socket, &command, sizeof command, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got != static_cast<ssize_t>(sizeof command)) ::_exit(0);  // the server has gone
    Answer answer{EINVAL};
    if (command.count <= kMaxMemoryPieces && command.size <= kMaxTransferBytes)
      answer.error = move_client_bytes(command.tid, {command.pieces, command.count}, staging,
                                       command.size, command.direction);
    if (::send(socket, &answer, sizeof answer, MSG_NOSIGNAL) != sizeof answer) ::_exit(0);
  }
}

// Makes one copier: answers a status byte and, on success, the copier's
// socket, staging memory and pidfd.
void make_copier(int socket) {
  const pid_t factory = ::getpid();
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    const char failed = 0;
    ::send(socket, &failed, 1, MSG_NOSIGNAL);
    return;
  }
  const int staging = ::memfd_create("cryptoaccel-copier", MFD_CLOEXEC);
  const pid_t child =
      staging >= 0 && ::ftruncate(staging, kMaxTransferBytes) == 0 ? ::fork() : -1;
  if (child == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != factory) ::_exit(0);
    ::close(socket);
    ::close(pair[0]);
    run_copier(pair[1], staging);
  }
  // Opened while the child is ours and not reaped: it names that process.
  const int pidfd = child > 0 ? pidfd_open(child, 0) : -1;
  const char status = pidfd >= 0 ? 1 : 0;
  iovec data{const_cast<char*>(&status), 1};
  alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  if (pidfd >= 0) {
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(3 * sizeof(int));
    const int fds[3] = {pair[0], staging, pidfd};
    std::memcpy(CMSG_DATA(header), fds, sizeof fds);
  } else if (child > 0) {
    ::kill(child, SIGKILL);
  }
  ::sendmsg(socket, &message, MSG_NOSIGNAL);
  for (const int fd : {pair[0], pair[1], staging, pidfd})
    if (fd >= 0) ::close(fd);
}

[[noreturn]] void run_factory(int socket, pid_t server) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != server) ::_exit(0);
  // Nothing of the server's but the socket: the CUSE device's descriptor
  // above all, which a copier stuck in a client's memory would keep open,
  // and the standard streams, which a test's runner waits on.
  if (socket != 3) {
    if (::dup2(socket, 3) != 3) ::_exit(1);
    socket = 3;
  }
  const int null = ::open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 3; ++fd)
    if (null >= 0) ::dup2(null, fd);
  ::close_range(4, ~0U, 0);
  for (;;) {
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    char asked = 0;
    const ssize_t got = ::recv(socket, &asked, 1, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) ::_exit(0);  // the server has gone
    make_copier(socket);
  }
}

}  // namespace

MemoryCopiers::MemoryCopiers(std::chrono::milliseconds deadline) : deadline_(deadline) {
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    const int error = errno;
    ::close(stop_fd_);
    throw std::system_error(error, std::generic_category(), "socketpair");
  }
  const pid_t server = ::getpid();
  const pid_t factory = ::fork();
  if (factory == 0) {
    ::close(pair[0]);
    run_factory(pair[1], server);
  }
  const int error = errno;
  ::close(pair[1]);
  factory_pidfd_ = factory > 0 ? pidfd_open(factory, 0) : -1;
  if (factory_pidfd_ < 0) {
    if (factory > 0) ::kill(factory, SIGKILL);
    ::close(pair[0]);
    ::close(stop_fd_);
    throw std::system_error(factory > 0 ? errno : error, std::generic_category(),
                            "starting the memory copiers");
  }
  factory_socket_ = pair[0];
}

MemoryCopiers::~MemoryCopiers() {
  stop();
  for (Copier& copier : idle_) end(copier);
  for (const GivenUp& g : given_up_) {
    pidfd_send_signal(g.pidfd, SIGKILL, nullptr, 0);
    ::close(g.pidfd);
  }
  ::close(factory_socket_);  // the factory ends on it, its copiers with it
  pidfd_send_signal(factory_pidfd_, SIGKILL, nullptr, 0);
  ::close(factory_pidfd_);
  ::close(stop_fd_);
}

void MemoryCopiers::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto written = ::write(stop_fd_, &one, sizeof one);
}

bool MemoryCopiers::spawn(Copier& copier) {
  std::lock_guard lock(spawn_mutex_);
  const char ask = 1;
  if (::send(factory_socket_, &ask, 1, MSG_NOSIGNAL) != 1) return false;
  if (wait_readable(factory_socket_, stop_fd_, kSpawnTimeout) != 0) return false;
  char status = 0;
  iovec data{&status, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  if (::recvmsg(factory_socket_, &message, MSG_CMSG_CLOEXEC) != 1 || status != 1) return false;
  const cmsghdr* header = CMSG_FIRSTHDR(&message);
  if (header == nullptr || header->cmsg_type != SCM_RIGHTS ||
      header->cmsg_len != CMSG_LEN(3 * sizeof(int)))
    return false;
  int fds[3];
  std::memcpy(fds, CMSG_DATA(header), sizeof fds);
  void* staging =
      ::mmap(nullptr, kMaxTransferBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fds[1], 0);
  ::close(fds[1]);
  copier = {.socket = fds[0], .pidfd = fds[2], .staging = nullptr};
  if (staging == MAP_FAILED) {
    end(copier);
    return false;
  }
  copier.staging = static_cast<std::uint8_t*>(staging);
  return true;
}

void MemoryCopiers::end(Copier& copier) {
  ::close(copier.socket);
  pidfd_send_signal(copier.pidfd, SIGKILL, nullptr, 0);
  ::close(copier.pidfd);
  if (copier.staging != nullptr) ::munmap(copier.staging, kMaxTransferBytes);
  copier = {};
}

void MemoryCopiers::give_up(Copier& copier, uid_t user) {
  // SIGKILL ends it unless the kernel holds it in a FUSE read that its
  // daemon has taken; then it ends when that daemon answers or dies.
  pidfd_send_signal(copier.pidfd, SIGKILL, nullptr, 0);
  ::close(copier.socket);
  ::munmap(copier.staging, kMaxTransferBytes);
  std::lock_guard lock(mutex_);
  given_up_.push_back({user, copier.pidfd});
  copier = {};
}

unsigned MemoryCopiers::stuck(uid_t user) {
  std::lock_guard lock(mutex_);
  unsigned count = 0;
  std::erase_if(given_up_, [&](const GivenUp& g) {
    pollfd p{g.pidfd, POLLIN, 0};
    if (::poll(&p, 1, 0) > 0) {  // it has ended
      ::close(g.pidfd);
      return true;
    }
    if (g.user == user) ++count;
    return false;
  });
  return count;
}

int MemoryCopiers::transfer(pid_t tid, uid_t user, std::span<const ClientIov> pieces, void* bytes,
                            std::size_t size, MemoryDirection direction) {
  std::size_t total = 0;
  for (const ClientIov& v : pieces) total += v.len;
  if (pieces.size() > kMaxMemoryPieces || total != size || size > kMaxTransferBytes) return EINVAL;
  if (size == 0) return 0;
  if (tid <= 0) return EMSGSIZE;  // the caller is not visible from our pid namespace
  Copier copier;
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return ECANCELED;
    if (!idle_.empty()) {
      copier = idle_.back();
      idle_.pop_back();
    }
  }
  if (copier.socket < 0 && !spawn(copier)) return EIO;
  Command command{.direction = direction,
                  .tid = tid,
                  .count = static_cast<std::uint32_t>(pieces.size()),
                  .size = size,
                  .pieces = {}};
  std::copy(pieces.begin(), pieces.end(), command.pieces);
  if (direction == MemoryDirection::write) std::memcpy(copier.staging, bytes, size);
  if (::send(copier.socket, &command, sizeof command, MSG_NOSIGNAL) != sizeof command) {
    end(copier);
    return EIO;
  }
  const int waited = wait_readable(copier.socket, stop_fd_, deadline_);
  if (waited != 0) {
    give_up(copier, user);
    return waited;  // ETIMEDOUT or ECANCELED
  }
  Answer answer{};
  if (::recv(copier.socket, &answer, sizeof answer, 0) != sizeof answer) {
    end(copier);  // it died
    return EIO;
  }
  if (direction == MemoryDirection::read && answer.error == 0)
    std::memcpy(bytes, copier.staging, size);
  {
    std::lock_guard lock(mutex_);
    if (!stopped_ && idle_.size() < kIdleCopiers) {
      idle_.push_back(copier);
      return answer.error;
    }
  }
  end(copier);
  return answer.error;
}

}  // namespace cryptoaccel::devcrypto
