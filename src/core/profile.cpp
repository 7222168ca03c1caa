// Profile files: reading (regular files of at most kMaxProfileBytes only),
// atomic saving, and the test of whether a profile fits the drivers present.
// The JSON itself is in profile_json.cpp.
#include "cryptoaccel/profile.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "cryptoaccel/error.hpp"

namespace cryptoaccel {
namespace {

// A string from the file as a reason shows it: control characters as '?'
// (no terminal escapes or line breaks in a log), cut short at 60 characters.
std::string shown_briefly(const std::string& text) {
  std::string out;
  for (const char c : text.substr(0, 60)) {
    const auto u = static_cast<unsigned char>(c);
    out += u < 0x20 || u == 0x7f ? '?' : c;
  }
  return text.size() > 60 ? out + "..." : out;
}

std::string system_error(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

}  // namespace

std::string driver_identity(const DriverInfo& driver) {
  return driver.name + " | " + driver.description + " | " +
         std::string(to_string(driver.traits.kind)) + " | priority " +
         std::to_string(driver.traits.priority);
}

Profile load_profile(const std::string& path) {
  // Non-blocking, so that opening a FIFO does not wait for a writer; then
  // only a regular file is read, and no more of it than a profile can be.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT) throw NotFound("no profile at " + path);
    throw ProfileUnreadable(system_error("cannot read " + path));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw ProfileUnreadable(system_error("cannot read " + path));
  if (!S_ISREG(st.st_mode)) throw InvalidArgument(path + ": not a regular file");
  const auto too_large = [&] {
    return InvalidArgument(path + ": larger than a profile may be (" +
                           std::to_string(kMaxProfileBytes) + " bytes)");
  };
  if (static_cast<std::uint64_t>(st.st_size) > kMaxProfileBytes) throw too_large();
  // The file may grow after fstat: read one byte more than the limit at most.
  std::string text(static_cast<std::size_t>(st.st_size) + 1, '\0');
  std::size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      if (text.size() > kMaxProfileBytes) throw too_large();
      text.resize(std::min<std::size_t>(text.size() * 2, kMaxProfileBytes + 1));
    }
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw ProfileUnreadable(system_error("cannot read " + path));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  try {
    return parse_profile(text);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(path + ": " + e.what());
  }
}

void save_profile(const Profile& profile, const std::string& path) {
  const std::filesystem::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
  if (ec)
    throw InvalidArgument("cannot create " + target.parent_path().string() + ": " + ec.message());
  // A profile replaces a regular file only, and keeps what the user gave
  // that file: its mode, owner and group (a new one: 0666 & ~umask, as a
  // shell redirect creates it). A file we may not write is not replaced.
  struct stat old {};
  const bool exists = ::stat(path.c_str(), &old) == 0;
  if (exists && !S_ISREG(old.st_mode))
    throw InvalidArgument(path + ": not a regular file; a profile is not written there");
  if (exists && ::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) != 0)
    throw InvalidArgument(system_error("cannot write " + path));
  std::string temporary = path + ".XXXXXX";
  const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
  if (fd < 0) throw InvalidArgument(system_error("cannot create a file beside " + path));
  const std::string text = to_json(profile);
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  bool ok = written == text.size();
  struct stat made {};
  if (ok && exists) ok = ::fstat(fd, &made) == 0;
  if (ok && exists && (made.st_uid != old.st_uid || made.st_gid != old.st_gid))
    ok = ::fchown(fd, old.st_uid, old.st_gid) == 0;  // before fchmod: it may clear set-id bits
  if (ok) {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ok = ::fchmod(fd, exists ? old.st_mode & 07777 : 0666 & ~mask) == 0;
  }
  ok = ok && ::fsync(fd) == 0;
  const int saved_errno = errno;
  ::close(fd);
  if (!ok || ::rename(temporary.c_str(), path.c_str()) != 0) {
    errno = ok ? errno : saved_errno;
    const std::string why = system_error("cannot write " + path);
    ::unlink(temporary.c_str());
    throw InvalidArgument(why);
  }
}

std::string default_profile_path() {
  if (const char* p = secure_getenv("CRYPTOACCEL_PROFILE"); p != nullptr && *p != '\0') return p;
  if (const char* x = secure_getenv("XDG_CACHE_HOME"); x != nullptr && *x == '/')
    return std::string(x) + "/cryptoaccel/profile.json";
  if (const char* h = secure_getenv("HOME"); h != nullptr && *h != '\0')
    return std::string(h) + "/.cache/cryptoaccel/profile.json";
  return "/var/cache/cryptoaccel/profile.json";
}

std::string machine_profile_path() {
  if (const char* p = secure_getenv("CRYPTOACCEL_MACHINE_PROFILE"); p != nullptr && *p != '\0')
    return p;
  return "/var/cache/cryptoaccel/machine-profile.json";
}

std::string machine_identity() {
  // Read once: neither the CPU nor (until a reboot, or a late microcode
  // load that a long-running process may miss) its microcode changes.
  static const std::string identity = [] {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::map<std::string, std::string> first;  // the first CPU's fields
    std::string line;
    while (std::getline(cpuinfo, line)) {
      if (line.empty()) break;
      const std::size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      auto trimmed = [](std::string s) {
        const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
        s.erase(s.begin(), std::find_if_not(s.begin(), s.end(), space));
        s.erase(std::find_if_not(s.rbegin(), s.rend(), space).base(), s.end());
        return s;
      };
      first.emplace(trimmed(line.substr(0, colon)), trimmed(line.substr(colon + 1)));
    }
    // x86 names these; Arm's /proc/cpuinfo has "CPU implementer", "CPU
    // part" and "CPU revision" instead (and no model name).
    std::string text;
    for (const char* key :
         {"model name", "cpu family", "model", "stepping", "microcode", "CPU implementer",
          "CPU architecture", "CPU variant", "CPU part", "CPU revision"}) {
      const auto it = first.find(key);
      if (it == first.end()) continue;
      if (!text.empty()) text += " | ";
      text += std::string(key) + " " + it->second;
    }
    return text.empty() ? std::string("unknown") : text;
  }();
  return identity;
}

std::string profile_mismatch(const Profile& profile, std::span<const DriverInfo> drivers) {
  if (!profile.machine.empty() && profile.machine != machine_identity())
    return "it was made on another machine or microcode (" + shown_briefly(profile.machine) + ")";
  std::set<std::string> present;
  for (const DriverInfo& d : drivers) {
    if (!d.traits.automatic) continue;
    present.insert(d.name);
    const auto it = profile.drivers.find(d.name);
    if (it == profile.drivers.end())
      return "driver '" + d.name + "' is new since the profile was made";
    if (it->second != driver_identity(d))
      return "driver '" + d.name +
             "' has changed since the profile was made (was: " + shown_briefly(it->second) + ")";
  }
  for (const auto& [name, identity] : profile.drivers)
    if (!present.contains(name))
      return "driver '" + shown_briefly(name) + "' of the profile is gone";
  return "";
}

}  // namespace cryptoaccel
