// The one parser of user-written settings (settings.hpp) and the driver
// preference of SessionOptions: an ordered list, a pin, or a fallback.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cryptoaccel/cryptoaccel.hpp"
#include "test_drivers.hpp"
#include "test_util.hpp"

namespace cryptoaccel {
namespace {

using test::random_bytes;

template <typename F>
std::string message_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Settings, DriverPreferenceReadsAndWritesAList) {
  const DriverPreference list = DriverPreference::parse(" afalg:x , soft,, ");
  ASSERT_EQ(list.drivers().size(), 2u);
  EXPECT_EQ(list.drivers()[0], "afalg:x");
  EXPECT_EQ(list.drivers()[1], "soft");
  EXPECT_EQ(list.text(), "afalg:x,soft");
  EXPECT_EQ(DriverPreference::parse(list.text()), list);
  // "auto" is the word for no preference, both ways.
  EXPECT_TRUE(DriverPreference::parse("auto").empty());
  EXPECT_TRUE(DriverPreference("").empty());
  EXPECT_TRUE(DriverPreference("auto").empty());
  EXPECT_EQ(DriverPreference().text(), "auto");
  EXPECT_EQ(DriverPreference("soft").text(), "soft");
}

TEST(Settings, ValuesAreTrimmedAndBadOnesNamed) {
  EXPECT_EQ(parse_policy(" offload\t", "policy"), Policy::offload);
  EXPECT_EQ(parse_offload_share(" 0.25 ", "offload_share"), 0.25);
  EXPECT_TRUE(parse_switch(" yes", "stats"));
  EXPECT_FALSE(parse_switch("", "stats"));
  EXPECT_EQ(parse_seed_source(" file:/dev/hwrng ", "seed_source"), "file:/dev/hwrng");
  EXPECT_EQ(message_of([] { parse_policy("nonsense", "policy"); }),
            "policy: unknown policy 'nonsense' (expected fastest, offload or software)");
  EXPECT_NE(
      message_of([] { parse_offload_share("0", "X"); }).find("X '0' is not a number in (0, 1000]"),
      std::string::npos);
  EXPECT_NE(message_of([] { parse_offload_share("1001", "X"); }).find("X '1001'"),
            std::string::npos);
  EXPECT_NE(message_of([] { parse_switch("maybe", "stats"); }).find("stats 'maybe' is not one"),
            std::string::npos);
  EXPECT_NE(message_of([] { parse_seed_source("bogus", "S"); }).find("S 'bogus' is not one of"),
            std::string::npos);
  EXPECT_EQ(parse_count(" 8 ", "async_workers", 1, 64), 8u);
  EXPECT_EQ(parse_count("64", "async_workers", 1, 64), 64u);
  for (const char* bad : {"0", "65", "-1", "8x", "", "99999999999999999999"})
    EXPECT_EQ(message_of([bad] { parse_count(bad, "W", 1, 64); }),
              std::string("W '") + bad + "' is not a whole number from 1 to 64")
        << bad;
}

// Sets a variable for one scope.
struct ScopedEnv {
  const char* name;
  ScopedEnv(const char* n, const char* value) : name(n) { ::setenv(n, value, 1); }
  ~ScopedEnv() { ::unsetenv(name); }
};

TEST(Settings, TheEnvironmentIsReadOneWayAndReportedEitherWay) {
  {
    ScopedEnv policy("CRYPTOACCEL_POLICY", " software ");
    ScopedEnv share("CRYPTOACCEL_OFFLOAD_SHARE", "2");
    const EnvironmentSettings s = read_environment();
    EXPECT_EQ(s.policy, Policy::software);
    EXPECT_EQ(s.offload_share, 2.0);
    EXPECT_FALSE(s.stats.has_value());
    EXPECT_FALSE(s.direct.has_value());
  }
  {
    ScopedEnv direct("CRYPTOACCEL_DIRECT", "0");
    EXPECT_EQ(read_environment().direct, false);
  }
  {
    ScopedEnv empty("CRYPTOACCEL_POLICY", " ");  // empty: no override
    EXPECT_FALSE(read_environment().policy.has_value());
  }
  ScopedEnv bad("CRYPTOACCEL_POLICY", "bogus");
  ScopedEnv good("CRYPTOACCEL_OFFLOAD_SHARE", "0.75");
  // The command's way: the bad one left out with a note, the others used.
  std::vector<std::string> ignored;
  const EnvironmentSettings s = read_environment(&ignored);
  EXPECT_FALSE(s.policy.has_value());
  EXPECT_EQ(s.offload_share, 0.75);
  ASSERT_EQ(ignored.size(), 1u);
  EXPECT_EQ(ignored[0],
            "CRYPTOACCEL_POLICY ignored: unknown policy 'bogus' (expected fastest, offload or "
            "software)");
  // The provider's way: the same reason, as an error.
  EXPECT_EQ(message_of([] { read_environment(); }),
            "CRYPTOACCEL_POLICY: unknown policy 'bogus' (expected fastest, offload or software)");
}

struct Bed {
  test::DriverControl control;
  std::unique_ptr<Framework> framework;
  Bed() {
    FrameworkOptions options;
    // "accel" offers aes-128-cbc only.
    options.drivers.push_back(
        std::make_unique<test::TestCbcDriver>("accel", DriverKind::hardware, control));
    framework = std::make_unique<Framework>(std::move(options));
  }
  SessionOptions prefer(std::string_view list, bool fall_back = false) {
    return {.framework = framework.get(),
            .driver = DriverPreference::parse(list),
            .fall_back = fall_back};
  }
};

TEST(Settings, ThePreferenceIsTriedInOrder) {
  Bed bed;
  CipherSession cbc("aes-128-cbc", random_bytes(16), bed.prefer("accel,soft"));
  cbc.encrypt(random_bytes(16), random_bytes(32));
  EXPECT_EQ(cbc.last_driver(), "accel");
  // accel does not offer SHA-256: the next driver of the list serves it.
  DigestSession sha("sha256", bed.prefer("accel,soft"));
  sha.digest(random_bytes(10));
  EXPECT_EQ(sha.last_driver(), "soft");
}

TEST(Settings, APinFailsWhereAFallbackGoesToTheDispatcher) {
  Bed bed;
  EXPECT_EQ(message_of([&] { DigestSession("sha256", bed.prefer("accel")); }),
            "driver 'accel' does not offer sha256");
  DigestSession sha("sha256", bed.prefer("accel", true));
  sha.digest(random_bytes(10));
  EXPECT_EQ(sha.last_driver(), "soft");
  // An unknown name is a mistake either way.
  EXPECT_THROW(DigestSession("sha256", bed.prefer("quantum,soft", true)), NotFound);
  // The null driver may be pinned by a program (to measure overhead), but a
  // front end that serves applications refuses it.
  EXPECT_NE(message_of([&] {
              check_serving_preference(*bed.framework, DriverPreference::parse("soft,null"),
                                       "applications");
            }).find("driver 'null' does no cryptography"),
            std::string::npos);
  EXPECT_NO_THROW(
      check_serving_preference(*bed.framework, DriverPreference::parse("accel,soft"), "x"));
}

}  // namespace
}  // namespace cryptoaccel
