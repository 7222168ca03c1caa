// OutputFile: `-o FILE` written as `> FILE` would write it (output_file.hpp).
#include "output_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "cryptoaccel/error.hpp"

namespace cryptoaccel::tools {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

// The temporary's name while it exists, for the signal handler: a static
// buffer, as a handler may only read memory and call async-signal-safe
// functions (unlink, sigaction, raise).
char g_temporary[PATH_MAX + 8];
struct sigaction g_previous[std::size(kSignals)];

extern "C" void on_output_signal(int signal) {
  if (g_temporary[0] != '\0') ::unlink(g_temporary);
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(signal, &fallback, nullptr);
  ::raise(signal);  // delivered, with the default action, when the handler returns
}

void install_handlers() {
  struct sigaction action {};
  action.sa_handler = on_output_signal;
  sigemptyset(&action.sa_mask);
  for (int s : kSignals) sigaddset(&action.sa_mask, s);
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    ::sigaction(kSignals[i], nullptr, &g_previous[i]);
    // An ignored signal (nohup, a parent ignoring SIGPIPE) stays ignored.
    if (g_previous[i].sa_handler != SIG_IGN) ::sigaction(kSignals[i], &action, nullptr);
  }
}

void restore_handlers() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    ::sigaction(kSignals[i], &g_previous[i], nullptr);
}

// Blocks the signals above for its lifetime: the temporary's name and the
// files on disk change together.
class SignalsBlocked {
 public:
  SignalsBlocked() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : kSignals) sigaddset(&set, s);
    ::sigprocmask(SIG_BLOCK, &set, &old_);
  }
  ~SignalsBlocked() { ::sigprocmask(SIG_SETMASK, &old_, nullptr); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t old_;
};

[[noreturn]] void fail(const std::string& path, int error) {
  throw InvalidArgument(path + ": " + std::strerror(error));
}

// `path` with symlinks in its last component followed, as open() follows
// them: the name a redirect writes (which may not exist yet).
std::string follow_links(const std::string& path) {
  std::string current = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    char link[PATH_MAX];
    const ssize_t n = ::readlink(current.c_str(), link, sizeof link - 1);
    if (n < 0) fail(path, errno);
    link[n] = '\0';
    if (link[0] == '/') {
      current = link;
    } else {
      const std::size_t slash = current.rfind('/');
      current = (slash == std::string::npos ? std::string() : current.substr(0, slash + 1)) + link;
    }
  }
  fail(path, ELOOP);
}

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) fail(path_, ENOENT);
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) fail(path_, errno);

  if (exists && !S_ISREG(st.st_mode)) {
    // A device, FIFO or socket (or a directory, refused by open): as `>`.
    fd_ = ::open(path_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd_ < 0) fail(path_, errno);
    return;
  }

  target_ = follow_links(path_);
  if (exists) {
    // What `>` would do first: open it for writing (without truncating).
    const int probe = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (probe < 0) fail(path_, errno);
    ::close(probe);
  }
  if (target_.size() + 8 > sizeof g_temporary) fail(path_, ENAMETOOLONG);
  if (g_temporary[0] != '\0')
    throw InvalidArgument(path_ + ": another output file is being written");

  install_handlers();
  {
    const SignalsBlocked blocked;
    std::memcpy(g_temporary, target_.c_str(), target_.size());
    std::memcpy(g_temporary + target_.size(), ".XXXXXX", 8);
    fd_ = ::mkostemp(g_temporary, O_CLOEXEC);
    if (fd_ < 0) {
      const int error = errno;
      g_temporary[0] = '\0';
      restore_handlers();
      fail(path_, error);
    }
  }
  temporary_ = true;

  bool ok = true;
  if (exists) {
    // The old file's owner and group (as `>` keeps them), then its mode
    // (after fchown, which may clear set-id bits).
    struct stat made {};
    ok = ::fstat(fd_, &made) == 0;
    if (ok && (made.st_uid != st.st_uid || made.st_gid != st.st_gid))
      ok = ::fchown(fd_, st.st_uid, st.st_gid) == 0;
    if (!ok) {
      const int error = errno;
      discard();
      throw InvalidArgument(path_ + ": cannot keep its owner and group (" +
                            std::to_string(st.st_uid) + ":" + std::to_string(st.st_gid) +
                            ") on the file replacing it: " + std::strerror(error));
    }
    ok = ::fchmod(fd_, st.st_mode & 07777) == 0;
  } else {
    // mkostemp made it 0600; `>` would create it 0666 & ~umask.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ok = ::fchmod(fd_, 0666 & ~mask) == 0;
  }
  if (!ok) {
    const int error = errno;
    discard();
    fail(path_, error);
  }
}

OutputFile::~OutputFile() {
  discard();
}

void OutputFile::write(const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, bytes, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      discard();
      fail(path_, error);
    }
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
}

void OutputFile::commit() {
  if (fd_ < 0) fail(path_, EBADF);
  if (!temporary_) {
    const int result = ::close(fd_);
    fd_ = -1;
    if (result != 0) fail(path_, errno);
    return;
  }
  if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
    const int error = errno;
    fd_ = -1;
    discard();
    fail(path_, error);
  }
  fd_ = -1;
  {
    const SignalsBlocked blocked;
    if (::rename(g_temporary, target_.c_str()) != 0) {
      const int error = errno;
      ::unlink(g_temporary);
      g_temporary[0] = '\0';
      temporary_ = false;
      restore_handlers();
      fail(path_, error);
    }
    g_temporary[0] = '\0';
    temporary_ = false;
    restore_handlers();
  }
}

void OutputFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temporary_) return;
  const SignalsBlocked blocked;
  ::unlink(g_temporary);
  g_temporary[0] = '\0';
  temporary_ = false;
  restore_handlers();
}

}  // namespace cryptoaccel::tools
