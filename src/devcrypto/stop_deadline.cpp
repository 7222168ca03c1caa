#include "stop_deadline.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <string_view>
#include <system_error>

namespace cryptoaccel::devcrypto {
namespace {

constexpr int kStopSignals[] = {SIGTERM, SIGINT, SIGHUP};

// Reached from the signal handler: plain globals, set before the handlers.
int signalled_fd = -1;  // an eventfd, readable once a stop signal came
int done_fd = -1;       // an eventfd, readable once the orderly stop is done
struct sigaction previous[std::size(kStopSignals)];

void on_stop_signal(int sig, siginfo_t* info, void* context) {
  const int saved = errno;
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto written = ::write(signalled_fd, &one, sizeof one);
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
    if (kStopSignals[i] != sig) continue;
    const struct sigaction& before = previous[i];
    if ((before.sa_flags & SA_SIGINFO) != 0 && before.sa_sigaction != nullptr)
      before.sa_sigaction(sig, info, context);
    else if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN)
      before.sa_handler(sig);
  }
  errno = saved;
}

bool readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  for (;;) {
    const int n = ::poll(&p, 1, timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    return n > 0;
  }
}

}  // namespace

StopDeadline::StopDeadline(std::chrono::milliseconds grace) {
  signalled_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  done_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (signalled_fd < 0 || done_fd < 0)
    throw std::system_error(errno, std::generic_category(), "eventfd");
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
    struct sigaction action {};
    action.sa_sigaction = on_stop_signal;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    ::sigaction(kStopSignals[i], &action, &previous[i]);
  }
  watcher_ = std::thread([this, grace] { watch(grace); });
}

StopDeadline::~StopDeadline() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto written = ::write(done_fd, &one, sizeof one);
  watcher_.join();
}

void StopDeadline::watch(std::chrono::milliseconds grace) {
  pollfd fds[2] = {{signalled_fd, POLLIN, 0}, {done_fd, POLLIN, 0}};
  while (::poll(fds, 2, -1) < 0 && errno == EINTR) {
  }
  if (fds[1].revents != 0) return;  // done without a signal
  if (readable(done_fd, static_cast<int>(grace.count()))) return;
  constexpr std::string_view message =
      "cryptoaccel devcrypto: requests still running at the stop's deadline; ending without "
      "them\n";
  [[maybe_unused]] const auto written = ::write(2, message.data(), message.size());
  ::_exit(0);
}

}  // namespace cryptoaccel::devcrypto
