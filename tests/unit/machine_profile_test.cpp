// The machine's profile (`cryptoaccel calibrate --machine`): it records the
// machine it was made on and the algorithms the provider leaves with
// OpenSSL's own implementation; a framework that finds no profile of the
// user's own uses it, and one made on another machine is stale.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "cryptoaccel/cryptoaccel.hpp"
#include "test_drivers.hpp"
#include "test_util.hpp"

namespace cryptoaccel {
namespace {

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "cryptoaccel-machine-" + std::to_string(::getpid()) + "-" + name;
}

// Sets (or, with nullopt, removes) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

FrameworkOptions from_environment(test::DriverControl& control) {
  FrameworkOptions o;
  o.profile_from_environment = true;
  o.drivers.push_back(
      std::make_unique<test::TestCbcDriver>("accel", DriverKind::hardware, control));
  return o;
}

// A profile of this machine's drivers: accel measured faster at every size.
Profile machine_profile(test::DriverControl& control) {
  Framework probe(from_environment(control));
  Profile p;
  p.created = "2026-12-07T00:00:00Z";
  p.machine = machine_identity();
  for (const DriverInfo& d : probe.drivers())
    if (d.traits.automatic) p.drivers[d.name] = driver_identity(d);
  for (const char* driver : {"soft", "accel"})
    p.measurements.push_back({.driver = driver,
                              .algorithm = AlgorithmId::aes_128_cbc,
                              .size = 1024,
                              .in_flight = 1,
                              .bytes_per_second = driver == std::string("accel") ? 1e9 : 1e8,
                              .cpu_seconds_per_byte = 1e-9});
  p.provider_direct = {AlgorithmId::aes_128_ctr, AlgorithmId::sha256};
  return p;
}

TEST(MachineProfile, IdentityNamesTheCpu) {
  const std::string identity = machine_identity();
  EXPECT_FALSE(identity.empty());
  EXPECT_EQ(identity, machine_identity());
#if defined(__x86_64__)
  EXPECT_NE(identity.find("model name "), std::string::npos) << identity;
#endif
}

TEST(MachineProfile, MachineAndProviderDirectSurviveJson) {
  test::DriverControl control;
  const Profile p = machine_profile(control);
  const Profile q = parse_profile(to_json(p));
  EXPECT_EQ(q.machine, p.machine);
  EXPECT_EQ(q.provider_direct, p.provider_direct);
  // Profiles made before either have neither, and still parse.
  Profile old = p;
  old.machine.clear();
  old.provider_direct.clear();
  const std::string text = to_json(old);
  EXPECT_EQ(text.find("\"machine\""), std::string::npos);
  EXPECT_EQ(text.find("\"provider_direct\""), std::string::npos);
  EXPECT_TRUE(parse_profile(text).provider_direct.empty());
}

TEST(MachineProfile, ProviderDirectNamesKnownAlgorithmsOnly) {
  test::DriverControl control;
  std::string text = to_json(machine_profile(control));
  const std::string known = "\"aes-128-ctr\"";
  text.replace(text.find(known), known.size(), "\"aes-1024-ctr\"");
  try {
    parse_profile(text);
    FAIL() << "an unknown algorithm was taken";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("\"provider_direct\" names an unknown algorithm"),
              std::string::npos)
        << e.what();
  }
}

TEST(MachineProfile, AnotherMachinesProfileIsStale) {
  test::DriverControl control;
  Profile p = machine_profile(control);
  Framework probe(from_environment(control));
  EXPECT_EQ(profile_mismatch(p, probe.drivers()), "");
  p.machine = "model name Another CPU | microcode 0x1";
  EXPECT_NE(profile_mismatch(p, probe.drivers()).find("made on another machine or microcode"),
            std::string::npos);
  p.machine.clear();  // unknown: profiles made before machines were recorded
  EXPECT_EQ(profile_mismatch(p, probe.drivers()), "");
}

// A framework reading its profile from the environment, with no user
// profile (no CRYPTOACCEL_PROFILE, an empty cache folder) and the machine's
// profile at `machine_path`.
class NoUserProfile {
 public:
  explicit NoUserProfile(const std::string& machine_path)
      : no_user_path_("CRYPTOACCEL_PROFILE", std::nullopt),
        empty_cache_("XDG_CACHE_HOME",
                     ::testing::TempDir() + "no-cache-" + std::to_string(::getpid())),
        machine_path_("CRYPTOACCEL_MACHINE_PROFILE", machine_path) {}

 private:
  ScopedEnv no_user_path_;
  ScopedEnv empty_cache_;
  ScopedEnv machine_path_;
};

TEST(MachineProfile, UsedWhereTheUserHasNone) {
  test::DriverControl control;
  const std::string machine = temp_path("machine.json");
  save_profile(machine_profile(control), machine);
  NoUserProfile environment(machine);
  {
    Framework f(from_environment(control));
    const DispatchInfo info = f.dispatch_info();
    EXPECT_TRUE(info.profiled) << info.detail;
    EXPECT_EQ(info.profile_path, machine);
    EXPECT_EQ(info.provider_direct,
              (std::vector<AlgorithmId>{AlgorithmId::aes_128_ctr, AlgorithmId::sha256}));
    CipherSession s("aes-128-cbc", test::random_bytes(16), {.framework = &f});
    s.encrypt(test::random_bytes(16), test::random_bytes(1024));
    EXPECT_EQ(s.last_driver(), "accel");
  }
  {
    // A path named in CRYPTOACCEL_PROFILE is the one asked for.
    ScopedEnv named("CRYPTOACCEL_PROFILE", temp_path("missing.json"));
    Framework f(from_environment(control));
    EXPECT_FALSE(f.dispatch_info().profiled);
    EXPECT_TRUE(f.dispatch_info().provider_direct.empty());
  }
  {
    // A profile given in the options is never replaced by the machine's.
    FrameworkOptions o = from_environment(control);
    o.profile_path = temp_path("missing.json");
    Framework f(std::move(o));
    EXPECT_FALSE(f.dispatch_info().profiled);
  }
  std::remove(machine.c_str());
}

TEST(MachineProfile, AStaleMachineProfileSaysWhy) {
  test::DriverControl control;
  const std::string machine = temp_path("stale.json");
  Profile p = machine_profile(control);
  p.machine = "model name Another CPU";
  save_profile(p, machine);
  NoUserProfile environment(machine);
  Framework f(from_environment(control));
  const DispatchInfo info = f.dispatch_info();
  EXPECT_FALSE(info.profiled);
  EXPECT_NE(info.detail.find("machine profile: profile " + machine + " is stale"),
            std::string::npos)
      << info.detail;
  EXPECT_TRUE(info.provider_direct.empty());
  std::remove(machine.c_str());
}

// A user profile that cannot be read (here its path runs through a file,
// as root's does for another user through a folder they may not enter) is
// not the user's: the machine's is used. One that is there but unfit is
// the user's to remake, and the machine's is not used in its place.
TEST(MachineProfile, AnUnreadableUserProfileGivesWayButAnUnfitOneDoesNot) {
  test::DriverControl control;
  const std::string machine = temp_path("for-unreadable.json");
  save_profile(machine_profile(control), machine);
  NoUserProfile environment(machine);
  const auto write_file = [](const std::string& path, const char* text) {
    std::ofstream(path) << text;
    return std::filesystem::is_regular_file(path);
  };
  const std::string not_a_folder = temp_path("not-a-folder");
  ASSERT_TRUE(write_file(not_a_folder, ""));
  {
    ScopedEnv cache_through_a_file("XDG_CACHE_HOME", not_a_folder);
    Framework f(from_environment(control));
    const DispatchInfo info = f.dispatch_info();
    EXPECT_TRUE(info.profiled) << info.detail;
    EXPECT_EQ(info.profile_path, machine);
  }
  {
    const std::string cache = temp_path("cache-with-corrupt");
    const std::string user_profile = cache + "/cryptoaccel/profile.json";
    std::filesystem::create_directories(cache + "/cryptoaccel");
    ASSERT_TRUE(write_file(user_profile, "{ not a profile"));
    ScopedEnv cache_with_corrupt("XDG_CACHE_HOME", cache);
    Framework f(from_environment(control));
    const DispatchInfo info = f.dispatch_info();
    EXPECT_FALSE(info.profiled);
    EXPECT_NE(info.profile_path, machine);
    EXPECT_NE(info.detail.find("not used"), std::string::npos) << info.detail;
    std::filesystem::remove_all(cache);
  }
  std::remove(not_a_folder.c_str());
  std::remove(machine.c_str());
}

}  // namespace
}  // namespace cryptoaccel
