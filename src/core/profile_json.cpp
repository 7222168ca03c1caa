// Profiles as JSON text: parsing with a reason for every refusal, and
// writing. Any text at all is either a profile or an InvalidArgument naming
// what is wrong (tests/fuzz/profile_fuzzer.cpp holds it to that): this file
// and the algorithm table are all it needs, so clang builds it for libFuzzer.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "cryptoaccel/error.hpp"
#include "cryptoaccel/profile.hpp"

namespace cryptoaccel {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kFormat = "cryptoaccel-profile";

// A value as a refusal shows it: compact, and cut short, since it comes
// from the file and may be as long as the file.
std::string shown(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 64) text = text.substr(0, 60) + "...";
  return text;
}

std::string shown(const std::string& text) {
  return shown(Json(text));
}

// Builds the document as nlohmann's own parser does, but remembers the key
// whose value was being read when parsing failed (a number out of range
// names its field), and refuses nesting deeper than a profile has (3: the
// document, "measurements", a measurement), with room to spare, so that no
// recursive walk (dump, destruction) ever meets a deep document.
class ProfileSax {
 public:
  static constexpr std::size_t kMaxDepth = 16;

  explicit ProfileSax(Json& result) : dom_(result, true) {}

  bool null() {
    value();
    return dom_.null();
  }
  bool boolean(bool v) {
    value();
    return dom_.boolean(v);
  }
  bool number_integer(Json::number_integer_t v) {
    value();
    return dom_.number_integer(v);
  }
  bool number_unsigned(Json::number_unsigned_t v) {
    value();
    return dom_.number_unsigned(v);
  }
  bool number_float(Json::number_float_t v, const std::string& s) {
    value();
    return dom_.number_float(v, s);
  }
  bool string(std::string& v) {
    value();
    return dom_.string(v);
  }
  bool binary(Json::binary_t& v) {
    value();
    return dom_.binary(v);
  }
  bool start_object(std::size_t n) { return open() && dom_.start_object(n); }
  bool key(std::string& k) {
    key_ = k;
    after_key_ = true;
    return dom_.key(k);
  }
  bool end_object() {
    close();
    return dom_.end_object();
  }
  bool start_array(std::size_t n) { return open() && dom_.start_array(n); }
  bool end_array() {
    close();
    return dom_.end_array();
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    if (error_.empty()) error_ = e.what();
    // nlohmann quotes what it last read, which can be long (a run of control
    // characters, each shown as <U+000A>): the reason is cut short.
    if (error_.size() > 200) error_ = error_.substr(0, 196) + "...'";
    if (after_key_) error_ += " (the value of " + shown(key_) + ")";
    return false;
  }

  // Why the text is not a document, or "" when it is.
  const std::string& error() const { return error_; }

 private:
  void value() { after_key_ = false; }
  bool open() {
    after_key_ = false;
    if (++depth_ <= kMaxDepth) return true;
    error_ = "nested deeper than " + std::to_string(kMaxDepth) + " levels";
    return false;
  }
  void close() {
    after_key_ = false;
    --depth_;
  }

  nlohmann::detail::json_sax_dom_parser<Json> dom_;
  std::string key_;
  bool after_key_ = false;
  std::size_t depth_ = 0;
  std::string error_;
};

const Json& member(const Json& object, const char* name, const std::string& where) {
  const auto it = object.find(name);
  if (it == object.end()) throw InvalidArgument("profile: " + where + " has no \"" + name + "\"");
  return *it;
}

[[noreturn]] void bad(const char* name, const std::string& where, const Json& value,
                      const std::string& why) {
  throw InvalidArgument("profile: " + where + " has a bad \"" + name + "\": " + shown(value) +
                        " (" + why + ")");
}

template <typename T>
T field(const Json& object, const char* name, const std::string& where) {
  const Json& value = member(object, name, where);
  try {
    return value.get<T>();
  } catch (const Json::exception&) {
    bad(name, where, value, "wrong type");
  }
}

// An integer field: a JSON integer (not 2.5, not 1e3), in [min, max].
template <typename T>
T integer_field(const Json& object, const char* name, const std::string& where, T min,
                T max = std::numeric_limits<T>::max()) {
  const Json& value = member(object, name, where);
  if (!value.is_number_integer()) bad(name, where, value, "not an integer");
  if (value.is_number_unsigned()) {
    const auto v = value.get<Json::number_unsigned_t>();
    if (v < static_cast<std::uint64_t>(min) || v > static_cast<std::uint64_t>(max))
      bad(name, where, value, "out of range " + std::to_string(min) + ".." + std::to_string(max));
    return static_cast<T>(v);
  }
  // A signed integer: nlohmann reads non-negative ones as unsigned, so this
  // one is negative, and no field may be.
  bad(name, where, value, "negative");
}

// A figure: a finite JSON number, at least min (above it when exclusive).
double figure_field(const Json& object, const char* name, const std::string& where, double min,
                    bool exclusive) {
  const Json& value = member(object, name, where);
  if (!value.is_number()) bad(name, where, value, "not a number");
  const double v = value.get<double>();
  if (!std::isfinite(v)) bad(name, where, value, "not finite");
  if (exclusive ? !(v > min) : !(v >= min))
    bad(name, where, value, exclusive ? "not positive" : "negative");
  return v;
}

Profile parse_document(const Json& j) {
  if (!j.is_object()) throw InvalidArgument("profile: not a cryptoaccel profile (not an object)");
  const auto format = j.find("format");
  if (format == j.end() || !format->is_string() || format->get_ref<const std::string&>() != kFormat)
    throw InvalidArgument("profile: not a cryptoaccel profile (no \"format\": \"" +
                          std::string(kFormat) + "\")");
  Profile p;
  const Json& version = member(j, "version", "the profile");
  if (!version.is_number_integer() || version != kProfileVersion)
    throw InvalidArgument("profile: version " + shown(version) +
                          ", this cryptoaccel reads version " + std::to_string(kProfileVersion) +
                          " (run `cryptoaccel calibrate` again)");
  p.version = kProfileVersion;
  p.created = field<std::string>(j, "created", "the profile");
  // Optional: profiles made before machines and the provider's check have none.
  if (j.contains("machine")) p.machine = field<std::string>(j, "machine", "the profile");
  p.drivers = field<std::map<std::string, std::string>>(j, "drivers", "the profile");
  if (j.contains("provider_direct")) {
    const auto names = field<std::vector<std::string>>(j, "provider_direct", "the profile");
    for (const std::string& name : names) {
      const Algorithm* a = find_algorithm(name);
      if (a == nullptr)
        throw InvalidArgument("profile: \"provider_direct\" names an unknown algorithm " +
                              shown(name));
      if (std::find(p.provider_direct.begin(), p.provider_direct.end(), a->id) ==
          p.provider_direct.end())
        p.provider_direct.push_back(a->id);
    }
  }
  const Json& measurements = member(j, "measurements", "the profile");
  if (!measurements.is_array()) throw InvalidArgument("profile: \"measurements\" is not a list");
  p.measurements.reserve(measurements.size());
  for (std::size_t i = 0; i < measurements.size(); ++i) {
    const Json& m = measurements[i];
    const std::string where = "measurement " + std::to_string(i);
    if (!m.is_object()) throw InvalidArgument("profile: " + where + " is not an object");
    Measurement out;
    out.driver = field<std::string>(m, "driver", where);
    const auto name = field<std::string>(m, "algorithm", where);
    const Algorithm* a = find_algorithm(name);
    if (a == nullptr)
      throw InvalidArgument("profile: " + where + ": unknown algorithm " + shown(name));
    out.algorithm = a->id;
    out.size = integer_field<std::size_t>(m, "size", where, 1, kMaxMeasuredSize);
    out.in_flight = integer_field<unsigned>(m, "in_flight", where, 1, kMaxMeasuredInFlight);
    // Optional: profiles made before loaded measurements have none.
    if (m.contains("workers"))
      out.workers = integer_field<unsigned>(m, "workers", where, 1, kMaxMeasuredInFlight);
    out.bytes_per_second = figure_field(m, "bytes_per_second", where, 0, true);
    out.cpu_seconds_per_byte = figure_field(m, "cpu_seconds_per_byte", where, 0, false);
    if (!p.drivers.contains(out.driver))
      throw InvalidArgument("profile: " + where + " names driver " + shown(out.driver) +
                            ", which is not in \"drivers\"");
    p.measurements.push_back(std::move(out));
  }
  return p;
}

}  // namespace

Profile parse_profile(std::string_view text) {
  Json j;
  ProfileSax sax(j);
  bool parsed = false;
  try {
    parsed = Json::sax_parse(text, &sax);
  } catch (const Json::exception& e) {
    throw InvalidArgument(std::string("profile: not JSON: ") + e.what());
  }
  if (!parsed) throw InvalidArgument("profile: not JSON: " + sax.error());
  try {
    return parse_document(j);
  } catch (const Json::exception& e) {
    // Every check above is meant to come first; this is the net under them.
    throw InvalidArgument(std::string("profile: unreadable: ") + e.what());
  }
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
  Json j = {{"format", kFormat},
            {"version", profile.version},
            {"created", profile.created},
            {"drivers", profile.drivers},
            {"measurements", std::move(measurements)}};
  if (!profile.machine.empty()) j["machine"] = profile.machine;
  if (!profile.provider_direct.empty()) {
    Json direct = Json::array();
    for (const AlgorithmId id : profile.provider_direct) direct.push_back(algorithm(id).name);
    j["provider_direct"] = std::move(direct);
  }
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace cryptoaccel
