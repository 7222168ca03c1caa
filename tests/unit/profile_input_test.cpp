// The profile as untrusted input (issue 15, items 7 and 8): only a regular
// file of at most kMaxProfileBytes is read (a FIFO or a device neither
// blocks nor is read without bound), and every number in it is checked
// (integers are integers, in range, not negative; figures finite), each
// refusal "not used, with a reason" naming the field, never another error.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <string>

#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel {
namespace {

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "cryptoaccel-input-" + std::to_string(::getpid()) + "-" + name;
}

// A valid profile for the drivers of a default framework (soft), as text.
std::string valid_profile() {
  FrameworkOptions o;
  Framework probe(std::move(o));
  Profile p;
  p.created = "2026-11-30T00:00:00Z";
  for (const DriverInfo& d : probe.drivers())
    if (d.traits.automatic) p.drivers[d.name] = driver_identity(d);
  p.measurements.push_back({.driver = "soft",
                            .algorithm = AlgorithmId::aes_128_cbc,
                            .size = 4096,
                            .in_flight = 1,
                            .workers = 1,
                            .bytes_per_second = 1e9,
                            .cpu_seconds_per_byte = 1e-9});
  return to_json(p);
}

// The valid profile with the first `"name": value` replaced by `"name": by`.
std::string with_field(const std::string& name, const std::string& by) {
  std::string text = valid_profile();
  const std::string key = "\"" + name + "\": ";
  const auto at = text.find(key);
  EXPECT_NE(at, std::string::npos) << name;
  const auto start = at + key.size();
  const auto end = text.find_first_of(",\n", start);
  return text.replace(start, end - start, by);
}

// Why parse_profile refuses the text ("" when it does not); anything but
// InvalidArgument escapes and fails the test.
std::string refusal(const std::string& text) {
  try {
    parse_profile(text);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

// The framework's view of the file: not used, and why.
DispatchInfo load(const std::string& path) {
  FrameworkOptions o;
  o.profile_path = path;
  Framework f(std::move(o));
  return f.dispatch_info();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST(ProfileInput, ValidProfileIsUsed) {
  const std::string path = temp_path("valid.json");
  write(path, valid_profile());
  const DispatchInfo info = load(path);
  EXPECT_TRUE(info.profiled) << info.detail;
  std::remove(path.c_str());
}

TEST(ProfileInput, FifoIsRefusedPromptly) {
  const std::string path = temp_path("fifo");
  std::remove(path.c_str());
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  auto loading = std::async(std::launch::async, [&] { return load(path); });
  if (loading.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    ADD_FAILURE() << "loading a FIFO as the profile blocks";
    // Unblock the reader (a writer that goes away at once: end of file), so
    // the test fails instead of hanging.
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  }
  const DispatchInfo info = loading.get();
  EXPECT_FALSE(info.profiled);
  EXPECT_NE(info.detail.find("not a regular file"), std::string::npos) << info.detail;
  EXPECT_NE(info.detail.find("not used"), std::string::npos) << info.detail;
  std::remove(path.c_str());
}

TEST(ProfileInput, DeviceIsRefusedUnread) {
  // /dev/zero and /dev/urandom never end: a reader without the checks reads
  // until memory runs out, so a regression ends the test binary instead.
  for (const char* device : {"/dev/urandom", "/dev/zero", "/dev/null"}) {
    auto loading = std::async(std::launch::async, [&] { return load(device); });
    if (loading.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
      std::fprintf(stderr, "loading %s as the profile does not return\n", device);
      std::_Exit(1);
    }
    const DispatchInfo info = loading.get();
    EXPECT_FALSE(info.profiled) << device;
    EXPECT_NE(info.detail.find(std::string(device) + ": not a regular file"), std::string::npos)
        << info.detail;
  }
  const DispatchInfo dir = load(::testing::TempDir());
  EXPECT_NE(dir.detail.find("not a regular file"), std::string::npos) << dir.detail;
}

TEST(ProfileInput, SizeLimit) {
  const std::string path = temp_path("large.json");
  std::string text = valid_profile();
  // Padded with white space to exactly the limit: still a profile.
  text.append(kMaxProfileBytes - text.size(), ' ');
  write(path, text);
  EXPECT_TRUE(load(path).profiled) << load(path).detail;
  // One byte more: refused, unparsed.
  write(path, text + " ");
  const DispatchInfo info = load(path);
  EXPECT_FALSE(info.profiled);
  EXPECT_NE(info.detail.find("larger than a profile may be (4194304 bytes)"), std::string::npos)
      << info.detail;
  std::remove(path.c_str());
}

TEST(ProfileInput, VersionMustBeExactlyTheSupportedInteger) {
  EXPECT_EQ(refusal(with_field("version", "1")), "");
  for (const char* bad : {"1e400", "-1e400", "1e300", "1.0", "1.5", "\"1\"", "-1", "2", "0",
                          "18446744073709551616", "null", "[1]"}) {
    const std::string why = refusal(with_field("version", bad));
    EXPECT_NE(why.find("version"), std::string::npos) << bad << ": " << why;
  }
  // Through the framework: not used, with the reason.
  const std::string path = temp_path("version.json");
  write(path, with_field("version", "1e400"));
  const DispatchInfo info = load(path);
  EXPECT_FALSE(info.profiled);
  EXPECT_NE(info.detail.find("1e400"), std::string::npos) << info.detail;
  EXPECT_NE(info.detail.find("\"version\""), std::string::npos) << info.detail;
  EXPECT_NE(info.detail.find("not used"), std::string::npos) << info.detail;
  std::remove(path.c_str());
}

TEST(ProfileInput, IntegerFieldsAreIntegersInRange) {
  const struct {
    const char* field;
    const char* value;
  } cases[] = {
      {"size", "1e300"},
      {"size", "-1"},
      {"size", "2.5"},
      {"size", "0"},
      {"size", "1e400"},
      {"size", "4096.0"},
      {"size", "\"4096\""},
      {"size", "18446744073709551616"},
      {"size", "-9223372036854775808"},
      {"in_flight", "1e12"},
      {"in_flight", "4294967296"},
      {"in_flight", "0"},
      {"in_flight", "-1"},
      {"in_flight", "1.5"},
      {"workers", "1e300"},
      {"workers", "-1"},
      {"workers", "0"},
      {"workers", "2.5"},
      {"workers", "true"},
  };
  for (const auto& c : cases) {
    const std::string why = refusal(with_field(c.field, c.value));
    EXPECT_NE(why.find(std::string("\"") + c.field + "\""), std::string::npos)
        << c.field << " " << c.value << ": " << why;
  }
  EXPECT_EQ(refusal(with_field("size", "65536")), "");
  EXPECT_EQ(refusal(with_field("in_flight", "8")), "");
  EXPECT_EQ(refusal(with_field("workers", "2")), "");
}

TEST(ProfileInput, FiguresAreFiniteAndNotNegative) {
  const struct {
    const char* field;
    const char* value;
  } cases[] = {
      {"bytes_per_second", "1e400"},     {"bytes_per_second", "-1e400"},
      {"bytes_per_second", "-1"},        {"bytes_per_second", "0"},
      {"bytes_per_second", "\"fast\""},  {"bytes_per_second", "NaN"},
      {"bytes_per_second", "Infinity"},  {"cpu_seconds_per_byte", "-1e-9"},
      {"cpu_seconds_per_byte", "1e400"}, {"cpu_seconds_per_byte", "null"},
  };
  for (const auto& c : cases) {
    const std::string why = refusal(with_field(c.field, c.value));
    EXPECT_NE(why.find(std::string("\"") + c.field + "\""), std::string::npos)
        << c.field << " " << c.value << ": " << why;
  }
  EXPECT_EQ(refusal(with_field("bytes_per_second", "12345")), "");
  EXPECT_EQ(refusal(with_field("cpu_seconds_per_byte", "0")), "");
}

TEST(ProfileInput, OtherShapesAreRefusedWithAReason) {
  EXPECT_NE(refusal("{\"format\": 1}").find("not a cryptoaccel profile"), std::string::npos);
  EXPECT_NE(refusal("[]").find("not a cryptoaccel profile"), std::string::npos);
  EXPECT_NE(refusal("").find("not JSON"), std::string::npos);
  EXPECT_NE(refusal(with_field("soft", "1")).find("\"drivers\""), std::string::npos);
  EXPECT_NE(refusal(with_field("created", "1e400")).find("\"created\""), std::string::npos);
  // Deep nesting is refused before anything walks it recursively.
  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');
  EXPECT_NE(refusal(deep).find("nested deeper"), std::string::npos);
  EXPECT_NE(refusal(with_field("version", std::string(100'000, '[') + std::string(100'000, ']')))
                .find("nested deeper"),
            std::string::npos);
  // What nlohmann last read is cut short too (the libFuzzer run found it:
  // each control character shows as <U+000A>).
  const std::string controls = refusal("{\"version\": 1,\n" + std::string(2000, '\n'));
  EXPECT_NE(controls.find("not JSON"), std::string::npos) << controls.substr(0, 200);
  EXPECT_LT(controls.size(), 300u);
  // A long bad value is cut short in the reason.
  const std::string why = refusal(with_field("algorithm", "\"" + std::string(100'000, 'x') + "\""));
  EXPECT_NE(why.find("unknown algorithm"), std::string::npos) << why.substr(0, 200);
  EXPECT_LT(why.size(), 300u);
}

}  // namespace
}  // namespace cryptoaccel
