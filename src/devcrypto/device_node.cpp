#include "device_node.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace cryptoaccel::devcrypto {
namespace {

bool plain_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '+';
}

const char* kind_of(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "a file";
}

// Closes the descriptor however the function returns.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string device_name_problem(std::string_view name) {
  if (name.empty()) return "the device name is empty";
  if (name.size() > kMaxDeviceName)
    return fmt::format("the device name is longer than {} characters", kMaxDeviceName);
  if (name.find('/') != std::string_view::npos)
    return fmt::format("'{}' is a path; the device name is a plain name under /dev", name);
  // '.' and '..' are /dev itself and its parent; a leading '-' reads as an option.
  if (name.front() == '.' || name.front() == '-')
    return fmt::format("'{}' is not a device name (it may not start with '{}')", name,
                       name.front());
  for (char c : name)
    if (!plain_char(c))
      return "the device name may hold only letters, digits and '-', '_', '.', '+'";
  return {};
}

std::string device_node_problem(const std::string& dir, std::string_view name) {
  if (std::string why = device_name_problem(name); !why.empty()) return why;
  const std::string path = dir + "/" + std::string(name);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0)
    return fmt::format(
        "{} exists already ({}); serving would take over another file: choose a "
        "name that does not exist",
        path, kind_of(st.st_mode));
  if (errno != ENOENT) return fmt::format("{}: {}", path, std::strerror(errno));
  return {};
}

std::optional<dev_t> cuse_device_number(std::string_view name) {
  if (!device_name_problem(name).empty()) return std::nullopt;
  // CUSE puts every device it makes in its own class, named by DEVNAME, and
  // refuses a second device of the same name: this number is ours alone.
  std::ifstream in("/sys/class/cuse/" + std::string(name) + "/dev");
  unsigned major = 0, minor = 0;
  char colon = 0;
  if (!(in >> major >> colon >> minor) || colon != ':') return std::nullopt;
  return makedev(major, minor);
}

std::string adopt_device_node(const std::string& dir, std::string_view name, dev_t expected,
                              mode_t mode, uid_t uid, gid_t gid) {
  if (std::string why = device_name_problem(name); !why.empty()) return why;
  const std::string path = dir + "/" + std::string(name);
  Fd dir_fd{::open(dir.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
  if (dir_fd.fd < 0) return fmt::format("{}: {}", dir, std::strerror(errno));
  // O_PATH opens without the driver's open (ours would wait for a loop that
  // is not running yet); O_NOFOLLOW opens a symlink itself, which fstat then
  // shows as what it is.
  Fd node{::openat(dir_fd.fd, std::string(name).c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC)};
  if (node.fd < 0) return fmt::format("{}: {}", path, std::strerror(errno));
  struct stat st {};
  if (::fstat(node.fd, &st) != 0) return fmt::format("{}: {}", path, std::strerror(errno));
  if (!S_ISCHR(st.st_mode))
    return fmt::format("{} is {}, not the device CUSE made: left as it is", path,
                       kind_of(st.st_mode));
  if (st.st_rdev != expected)
    return fmt::format("{} is device {}:{}, not the CUSE device {}:{}: left as it is", path,
                       major(st.st_rdev), minor(st.st_rdev), major(expected), minor(expected));
  // Both changes go through the descriptor, to the inode just checked.
  if ((uid != static_cast<uid_t>(-1) || gid != static_cast<gid_t>(-1)) &&
      ::fchownat(node.fd, "", uid, gid, AT_EMPTY_PATH) != 0)
    return fmt::format("chown {}: {}", path, std::strerror(errno));
  // fchmod refuses an O_PATH descriptor and fchmodat has no AT_EMPTY_PATH
  // before Linux 6.6; /proc/self/fd/N names the same inode, whatever
  // happened to the path since.
  const std::string self = fmt::format("/proc/self/fd/{}", node.fd);
  if (::chmod(self.c_str(), mode) != 0)
    return fmt::format("chmod {}: {}", path, std::strerror(errno));
  return {};
}

}  // namespace cryptoaccel::devcrypto
