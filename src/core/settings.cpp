// The one parser of user-written settings (settings.hpp), and the driver
// preference's text form (session.hpp).
#include "cryptoaccel/settings.hpp"

#include <charconv>
#include <cstdlib>

#include "cryptoaccel/error.hpp"

namespace cryptoaccel {
namespace {

// "WHERE: " before a message, or nothing when the caller names it.
std::string named(std::string_view where, std::string_view separator) {
  return where.empty() ? std::string() : std::string(where) + std::string(separator);
}

const char* environment(const char* variable) {
  const char* value = secure_getenv(variable);
  return value != nullptr && !trim_setting(value).empty() ? value : nullptr;
}

}  // namespace

std::string_view trim_setting(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Policy parse_policy(std::string_view value, std::string_view where) {
  try {
    return parse_policy(trim_setting(value));
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(named(where, ": ") + e.what());
  }
}

double parse_offload_share(std::string_view value, std::string_view where) {
  const std::string text(trim_setting(value));
  char* end = nullptr;
  const double share = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(share > 0 && share <= 1000))
    throw InvalidArgument(named(where, " ") + "'" + text +
                          "' is not a number in (0, 1000] (the share of software throughput "
                          "hardware must reach under the offload policy)");
  return share;
}

bool parse_switch(std::string_view value, std::string_view where) {
  value = trim_setting(value);
  for (std::string_view yes : {"1", "yes", "true", "on"})
    if (value == yes) return true;
  for (std::string_view no : {"0", "no", "false", "off", ""})
    if (value == no) return false;
  throw InvalidArgument(named(where, " ") + "'" + std::string(value) +
                        "' is not one of 1, yes, true, on, 0, no, false, off");
}

unsigned parse_count(std::string_view value, std::string_view where, unsigned low, unsigned high) {
  const std::string text(trim_setting(value));
  unsigned long long count = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size() || count < low ||
      count > high)
    throw InvalidArgument(named(where, " ") + "'" + text + "' is not a whole number from " +
                          std::to_string(low) + " to " + std::to_string(high));
  return static_cast<unsigned>(count);
}

std::string parse_seed_source(std::string_view value, std::string_view where) {
  value = trim_setting(value);
  for (std::string_view fixed : {"best", "hwrng", "getrandom", "rdrand", "rdseed", "rndr", "rndrrs", "afalg"})
    if (value == fixed) return std::string(value);
  if (value.starts_with("afalg:") || value.starts_with("file:")) return std::string(value);
  throw InvalidArgument(named(where, " ") + "'" + std::string(value) +
                        "' is not one of best, hwrng, getrandom, rdrand, rdseed, rndr, rndrrs, afalg[:ALG], "
                        "file:PATH");
}

EnvironmentSettings read_environment(std::vector<std::string>* ignored) {
  EnvironmentSettings settings;
  // Each variable alone: one bad value leaves the others in force.
  const auto read = [ignored](const char* variable, auto parse) {
    const char* value = environment(variable);
    if (value == nullptr) return;
    if (ignored == nullptr) return parse(value, variable);
    try {
      parse(value, "");
    } catch (const InvalidArgument& e) {
      ignored->push_back(std::string(variable) + " ignored: " + e.what());
    }
  };
  read("CRYPTOACCEL_POLICY",
       [&](const char* v, const char* where) { settings.policy = parse_policy(v, where); });
  read("CRYPTOACCEL_OFFLOAD_SHARE", [&](const char* v, const char* where) {
    settings.offload_share = parse_offload_share(v, where);
  });
  read("CRYPTOACCEL_STATS",
       [&](const char* v, const char* where) { settings.stats = parse_switch(v, where); });
  read("CRYPTOACCEL_DIRECT",
       [&](const char* v, const char* where) { settings.direct = parse_switch(v, where); });
  settings.profile = environment("CRYPTOACCEL_PROFILE") != nullptr;
  return settings;
}

void check_serving_preference(const Framework& framework, const DriverPreference& preference,
                              std::string_view clients) {
  const std::vector<DriverInfo> drivers = framework.drivers();
  for (const std::string& name : preference.drivers()) {
    const DriverInfo* found = nullptr;
    for (const DriverInfo& d : drivers)
      if (d.name == name) found = &d;
    if (found == nullptr)
      throw NotFound("no driver named '" + name + "' (`cryptoaccel list` shows the drivers)");
    if (!found->traits.self_test)
      throw InvalidArgument("driver '" + name +
                            "' does no cryptography (it only measures overhead) and cannot "
                            "serve " +
                            std::string(clients) + "; name a real driver (`cryptoaccel list`)");
  }
}

DriverPreference::DriverPreference(std::string driver) {
  if (!driver.empty() && driver != "auto") drivers_.push_back(std::move(driver));
}

DriverPreference::DriverPreference(std::vector<std::string> drivers)
    : drivers_(std::move(drivers)) {
  std::erase_if(drivers_, [](const std::string& d) { return d.empty() || d == "auto"; });
}

DriverPreference DriverPreference::parse(std::string_view text) {
  std::vector<std::string> names;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view name = trim_setting(text.substr(0, comma));
    if (!name.empty()) names.emplace_back(name);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return DriverPreference(std::move(names));
}

std::string DriverPreference::text() const {
  if (drivers_.empty()) return "auto";
  std::string out;
  for (const std::string& d : drivers_) out += (out.empty() ? "" : ",") + d;
  return out;
}

}  // namespace cryptoaccel
