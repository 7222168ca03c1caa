#include "thread_identity.hpp"

#include <fcntl.h>
#include <linux/keyctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace cryptoaccel::keyring {
namespace {

// Reads a small /proc file whole into `buffer`; its length, or -1 when it
// could not be read or did not fit.
long read_small_file(const char* path, char* buffer, std::size_t size) noexcept {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  std::size_t length = 0;
  for (;;) {
    if (length == size) {  // no room left: it did not fit
      close(fd);
      return -1;
    }
    const ssize_t n = read(fd, buffer + length, size - length);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      close(fd);
      return -1;
    }
    if (n == 0) break;
    length += static_cast<std::size_t>(n);
  }
  close(fd);
  return static_cast<long>(length);
}

// The lines of /proc/PID/status that say what the kernel checks a call
// against (fs/proc/array.c: task_cred() and task_seccomp()).
constexpr std::string_view kCredentialLines[] = {
    "Uid:",    "Gid:",    "Groups:", "CapInh:",     "CapPrm:",        "CapEff:",
    "CapBnd:", "CapAmb:", "NoNewPrivs:", "Seccomp:", "Seccomp_filters:"};

bool is_credential_line(std::string_view line) noexcept {
  for (std::string_view prefix : kCredentialLines)
    if (line.substr(0, prefix.size()) == prefix) return true;
  return false;
}

long keyring_of(int which) noexcept {
  const long serial = syscall(__NR_keyctl, KEYCTL_GET_KEYRING_ID, which, 0, 0, 0);
  return serial < 0 ? -errno : serial;
}

}  // namespace

void identify_this_thread(ThreadIdentity& out) noexcept {
  out.readable = false;
  out.credentials_length = 0;
  out.process_keyring = keyring_of(KEY_SPEC_PROCESS_KEYRING);
  out.session_keyring = keyring_of(KEY_SPEC_SESSION_KEYRING);
  std::array<char, 8192> status;
  const long length = read_small_file("/proc/thread-self/status", status.data(), status.size());
  if (length < 0) return;
  std::string_view rest(status.data(), static_cast<std::size_t>(length));
  std::size_t kept = 0;
  const auto keep = [&](std::string_view text) {
    if (kept + text.size() > out.credentials.size()) return false;
    std::memcpy(out.credentials.data() + kept, text.data(), text.size());
    kept += text.size();
    return true;
  };
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end == std::string_view::npos ? rest.size() : end + 1);
    rest.remove_prefix(line.size());
    if (is_credential_line(line) && !keep(line)) return;
  }
  // The security module's label; a kernel without one has no such file
  // (then both threads read nothing).
  std::array<char, 512> label;
  const long label_length =
      read_small_file("/proc/thread-self/attr/current", label.data(), label.size());
  if (label_length > 0 &&
      !keep(std::string_view(label.data(), static_cast<std::size_t>(label_length))))
    return;
  out.credentials_length = kept;
  out.readable = true;
}

bool may_act_for(const ThreadIdentity& possessor, const ThreadIdentity& caller) noexcept {
  if (!possessor.readable || !caller.readable) return false;
  if (possessor.credentials_length != caller.credentials_length ||
      std::memcmp(possessor.credentials.data(), caller.credentials.data(),
                  caller.credentials_length) != 0)
    return false;
  // The caller could not even ask for its keyrings (a filter on keyctl):
  // that answer stands.
  if ((caller.process_keyring < 0 && caller.process_keyring != -ENOKEY) ||
      (caller.session_keyring < 0 && caller.session_keyring != -ENOKEY))
    return false;
  return caller.process_keyring != possessor.process_keyring ||
         caller.session_keyring != possessor.session_keyring;
}

bool other_threads_running() noexcept {
  std::array<char, 8192> status;
  const long length = read_small_file("/proc/self/status", status.data(), status.size());
  if (length < 0) return true;
  const std::string_view text(status.data(), static_cast<std::size_t>(length));
  const std::size_t at = text.find("\nThreads:");
  if (at == std::string_view::npos) return true;
  std::size_t i = at + std::strlen("\nThreads:");
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  long threads = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) threads = threads * 10 + (text[i] - '0');
  return threads != 1;
}

}  // namespace cryptoaccel::keyring
