// Profiles as JSON files: parsing with a reason for every refusal, atomic
// saving, and the test of whether a profile fits the drivers present.
#include "cryptoaccel/profile.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cryptoaccel/error.hpp"

namespace cryptoaccel {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kFormat = "cryptoaccel-profile";

std::string system_error(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

template <typename T>
T field(const Json& object, const char* name, const std::string& where) {
  const auto it = object.find(name);
  if (it == object.end()) throw InvalidArgument("profile: " + where + " has no \"" + name + "\"");
  try {
    return it->get<T>();
  } catch (const Json::exception&) {
    throw InvalidArgument("profile: " + where + " has a bad \"" + name + "\": " + it->dump());
  }
}

}  // namespace

std::string driver_identity(const DriverInfo& driver) {
  return driver.name + " | " + driver.description + " | " +
         std::string(to_string(driver.traits.kind)) + " | priority " +
         std::to_string(driver.traits.priority);
}

Profile parse_profile(std::string_view text) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw InvalidArgument(std::string("profile: not JSON: ") + e.what());
  }
  if (!j.is_object() || j.value("format", std::string()) != kFormat)
    throw InvalidArgument("profile: not a cryptoaccel profile (no \"format\": \"" +
                          std::string(kFormat) + "\")");
  Profile p;
  p.version = field<int>(j, "version", "the profile");
  if (p.version != kProfileVersion)
    throw InvalidArgument("profile: version " + std::to_string(p.version) +
                          ", this cryptoaccel reads version " + std::to_string(kProfileVersion) +
                          " (run `cryptoaccel calibrate` again)");
  p.created = field<std::string>(j, "created", "the profile");
  p.drivers = field<std::map<std::string, std::string>>(j, "drivers", "the profile");
  const auto measurements = field<Json>(j, "measurements", "the profile");
  if (!measurements.is_array()) throw InvalidArgument("profile: \"measurements\" is not a list");
  for (std::size_t i = 0; i < measurements.size(); ++i) {
    const Json& m = measurements[i];
    const std::string where = "measurement " + std::to_string(i);
    if (!m.is_object()) throw InvalidArgument("profile: " + where + " is not an object");
    Measurement out;
    out.driver = field<std::string>(m, "driver", where);
    const auto name = field<std::string>(m, "algorithm", where);
    const Algorithm* a = find_algorithm(name);
    if (a == nullptr) throw InvalidArgument("profile: " + where + ": unknown algorithm " + name);
    out.algorithm = a->id;
    out.size = field<std::size_t>(m, "size", where);
    out.in_flight = field<unsigned>(m, "in_flight", where);
    // Optional: profiles made before loaded measurements have none.
    if (m.contains("workers")) out.workers = field<unsigned>(m, "workers", where);
    out.bytes_per_second = field<double>(m, "bytes_per_second", where);
    out.cpu_seconds_per_byte = field<double>(m, "cpu_seconds_per_byte", where);
    if (!p.drivers.contains(out.driver))
      throw InvalidArgument("profile: " + where + " names driver '" + out.driver +
                            "', which is not in \"drivers\"");
    if (!(out.bytes_per_second > 0) || out.cpu_seconds_per_byte < 0 || out.in_flight == 0 ||
        out.workers == 0)
      throw InvalidArgument("profile: " + where + " has impossible figures");
    p.measurements.push_back(std::move(out));
  }
  return p;
}

std::string to_json(const Profile& profile) {
  Json measurements = Json::array();
  for (const Measurement& m : profile.measurements)
    measurements.push_back({{"driver", m.driver},
                            {"algorithm", algorithm(m.algorithm).name},
                            {"size", m.size},
                            {"in_flight", m.in_flight},
                            {"workers", m.workers},
                            {"bytes_per_second", m.bytes_per_second},
                            {"cpu_seconds_per_byte", m.cpu_seconds_per_byte}});
  const Json j = {{"format", kFormat},
                  {"version", profile.version},
                  {"created", profile.created},
                  {"drivers", profile.drivers},
                  {"measurements", std::move(measurements)}};
  return j.dump(2) + "\n";
}

Profile load_profile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) throw NotFound("no profile at " + path);
    throw InvalidArgument(system_error("cannot read " + path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return parse_profile(text.str());
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
  std::string temporary = path + ".XXXXXX";
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) throw InvalidArgument(system_error("cannot create a file beside " + path));
  const std::string text = to_json(profile);
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  const bool ok = written == text.size() && ::fchmod(fd, 0644) == 0 && ::fsync(fd) == 0;
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
  if (const char* p = std::getenv("CRYPTOACCEL_PROFILE"); p != nullptr && *p != '\0') return p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x == '/')
    return std::string(x) + "/cryptoaccel/profile.json";
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0')
    return std::string(h) + "/.cache/cryptoaccel/profile.json";
  return "/var/cache/cryptoaccel/profile.json";
}

std::string profile_mismatch(const Profile& profile, std::span<const DriverInfo> drivers) {
  std::set<std::string> present;
  for (const DriverInfo& d : drivers) {
    if (!d.traits.automatic) continue;
    present.insert(d.name);
    const auto it = profile.drivers.find(d.name);
    if (it == profile.drivers.end())
      return "driver '" + d.name + "' is new since the profile was made";
    if (it->second != driver_identity(d))
      return "driver '" + d.name + "' has changed since the profile was made (was: " + it->second +
             ")";
  }
  for (const auto& [name, identity] : profile.drivers)
    if (!present.contains(name)) return "driver '" + name + "' of the profile is gone";
  return "";
}

}  // namespace cryptoaccel
