// Dispatch profiles: a profile steers each request by its size; a missing,
// corrupt, stale or other-version one is refused with a reason and the
// default order applies; a failing driver is quarantined and retried later.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <thread>

#include "cryptoaccel/cryptoaccel.hpp"
#include "fault_driver.hpp"
#include "test_drivers.hpp"
#include "test_util.hpp"

namespace cryptoaccel {
namespace {

using test::Behaviour;
using test::ByteVector;
using test::DriverControl;
using test::random_bytes;

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "cryptoaccel-" + std::to_string(::getpid()) + "-" + name;
}

FrameworkOptions options_with_accel(DriverControl& control, Policy policy, std::string profile) {
  FrameworkOptions o;
  o.policy = policy;
  o.profile_path = std::move(profile);
  o.drivers.push_back(
      std::make_unique<test::TestCbcDriver>("accel", DriverKind::hardware, control));
  return o;
}

// A profile for soft + accel on this machine: soft is fast below 1 KiB and
// slow from 4 KiB, accel the other way round.
Profile crossover_profile(DriverControl& control) {
  Framework probe(options_with_accel(control, Policy::fastest, ""));
  Profile p;
  p.created = "2026-11-30T00:00:00Z";
  for (const DriverInfo& d : probe.drivers())
    if (d.traits.automatic) p.drivers[d.name] = driver_identity(d);
  for (std::size_t size : kSizeBuckets) {
    if (size > 4096) continue;  // accel takes 4096 at most
    const bool large = size >= 4096;
    p.measurements.push_back({.driver = "soft",
                              .algorithm = AlgorithmId::aes_128_cbc,
                              .size = size,
                              .in_flight = 1,
                              .bytes_per_second = large ? 1e8 : 1e9,
                              .cpu_seconds_per_byte = 1e-9});
    p.measurements.push_back({.driver = "accel",
                              .algorithm = AlgorithmId::aes_128_cbc,
                              .size = size,
                              .in_flight = 1,
                              .bytes_per_second = large ? 1e9 : 1e7,
                              .cpu_seconds_per_byte = 1e-11});
  }
  return p;
}

std::string served(Framework& f, std::size_t size) {
  CipherSession s("aes-128-cbc", random_bytes(16), {.framework = &f});
  s.encrypt(random_bytes(16), random_bytes(size));
  return std::string(s.last_driver());
}

TEST(Profile, JsonRoundTrip) {
  DriverControl control;
  Profile p = crossover_profile(control);
  p.measurements[3].workers = 2;
  const Profile q = parse_profile(to_json(p));
  EXPECT_EQ(q.version, kProfileVersion);
  EXPECT_EQ(q.created, p.created);
  EXPECT_EQ(q.drivers, p.drivers);
  ASSERT_EQ(q.measurements.size(), p.measurements.size());
  EXPECT_EQ(q.measurements[3].driver, p.measurements[3].driver);
  EXPECT_EQ(q.measurements[3].size, p.measurements[3].size);
  EXPECT_EQ(q.measurements[3].workers, 2u);
  EXPECT_EQ(q.measurements[2].workers, 1u);
  EXPECT_DOUBLE_EQ(q.measurements[3].bytes_per_second, p.measurements[3].bytes_per_second);
}

TEST(Profile, SizeBuckets) {
  EXPECT_EQ(size_bucket(0), 0u);
  EXPECT_EQ(size_bucket(16), 0u);
  EXPECT_EQ(size_bucket(63), 0u);
  EXPECT_EQ(size_bucket(64), 1u);
  EXPECT_EQ(size_bucket(1023), 2u);
  EXPECT_EQ(size_bucket(1024), 3u);
  EXPECT_EQ(size_bucket(16384), 5u);
  EXPECT_EQ(size_bucket(65536), 6u);
  EXPECT_EQ(size_bucket(1u << 30), 6u);
}

TEST(Profile, FastestChoosesByRequestSize) {
  DriverControl control;
  const std::string path = temp_path("crossover.json");
  save_profile(crossover_profile(control), path);
  Framework f(options_with_accel(control, Policy::fastest, path));
  const DispatchInfo info = f.dispatch_info();
  EXPECT_TRUE(info.profiled) << info.detail;
  EXPECT_EQ(served(f, 32), "soft");
  EXPECT_EQ(served(f, 4096), "accel");
  // One session, sizes alternating: the cached route is re-chosen.
  CipherSession s("aes-128-cbc", random_bytes(16), {.framework = &f});
  const auto key_iv = random_bytes(16);
  for (std::size_t size : {16u, 4096u, 64u, 4096u, 1024u}) {
    s.encrypt(key_iv, random_bytes(size));
    EXPECT_EQ(s.last_driver(), size >= 4096 ? "accel" : "soft") << size;
  }
  std::remove(path.c_str());
}

TEST(Profile, OffloadNeedsAShareOfSoftware) {
  DriverControl control;
  const std::string path = temp_path("offload.json");
  save_profile(crossover_profile(control), path);
  FrameworkOptions o = options_with_accel(control, Policy::offload, path);
  o.offload_share = 0.5;  // accel at 16 B is 1% of soft: not offloaded
  Framework f(std::move(o));
  EXPECT_EQ(served(f, 16), "soft");
  EXPECT_EQ(served(f, 4096), "accel");
  FrameworkOptions low = options_with_accel(control, Policy::offload, path);
  low.offload_share = 0.001;  // 1% is enough now
  Framework g(std::move(low));
  EXPECT_EQ(served(g, 16), "accel");
  Framework software(options_with_accel(control, Policy::software, path));
  EXPECT_EQ(served(software, 4096), "soft");
  std::remove(path.c_str());
}

// soft and the device `accel` (a FaultyDriver), dispatched by a profile in
// which accel is a little faster than soft at every size, one request at a
// time: it leads the order, and the next request should go to software as
// soon as the device holds one. With `loaded`, the profile also has the
// figures from two threads at once: soft doubles, the device does not, so
// under load software serves more.
struct BusyDeviceBed {
  explicit BusyDeviceBed(bool loaded) {
    path = temp_path(loaded ? "loaded-device.json" : "busy-device.json");
    save_profile(profile(loaded), path);
    FrameworkOptions o;
    o.profile_path = path;
    o.drivers.push_back(std::make_unique<test::FaultyDriver>("accel", faults));
    framework = std::make_unique<Framework>(std::move(o));
  }
  ~BusyDeviceBed() { std::remove(path.c_str()); }

  // Starts `holder`'s request, which stays inside the device until
  // faults.release(); returns once it is there.
  std::future<ByteVector> hold_device(CipherSession& holder, const ByteVector& iv,
                                      const ByteVector& data) {
    faults.hang_at = faults.processed.load() + 1;
    auto held = std::async(std::launch::async, [&] { return holder.encrypt(iv, data); });
    while (faults.hung.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return held;
  }

  test::Faults faults;
  std::string path;
  std::unique_ptr<Framework> framework;

 private:
  Profile profile(bool loaded) {
    FrameworkOptions o;
    o.drivers.push_back(std::make_unique<test::FaultyDriver>("accel", faults));
    Framework probe(std::move(o));
    Profile p;
    p.created = "2026-11-30T00:00:00Z";
    for (const DriverInfo& d : probe.drivers())
      if (d.traits.automatic) p.drivers[d.name] = driver_identity(d);
    const auto add = [&](const char* driver, double rate, unsigned workers) {
      for (std::size_t size : kSizeBuckets)
        p.measurements.push_back({.driver = driver,
                                  .algorithm = AlgorithmId::aes_128_cbc,
                                  .size = size,
                                  .in_flight = 1,
                                  .workers = workers,
                                  .bytes_per_second = rate,
                                  .cpu_seconds_per_byte = 1e-9});
    };
    add("accel", 1.0e9, 1);
    add("soft", 0.8e9, 1);
    if (loaded) {
      add("accel", 1.0e9, 2);
      add("soft", 1.6e9, 2);
    }
    return p;
  }
};

// While another thread's request holds the device, a session whose route
// leads there sends its next request to software, with the right answer,
// and returns to the device once it is free.
TEST(Relief, BusyDeviceSendsTheNextRequestToSoftware) {
  BusyDeviceBed bed(false);
  Framework& f = *bed.framework;
  ASSERT_TRUE(f.dispatch_info().profiled) << f.dispatch_info().detail;
  const auto key = random_bytes(16), iv = random_bytes(16), data = random_bytes(4096);
  CipherSession reference("aes-128-cbc", key, {.framework = &f, .driver = "soft"});
  const auto expected = reference.encrypt(iv, data);

  CipherSession holder("aes-128-cbc", key, {.framework = &f});
  CipherSession other("aes-128-cbc", key, {.framework = &f});
  EXPECT_EQ(other.encrypt(iv, data), expected);
  EXPECT_EQ(other.last_driver(), "accel");  // the device is free: it leads

  auto held = bed.hold_device(holder, iv, data);
  EXPECT_EQ(other.encrypt(iv, data), expected);
  EXPECT_EQ(other.last_driver(), "soft");
  bed.faults.release();
  EXPECT_EQ(held.get(), expected);
  EXPECT_EQ(holder.last_driver(), "accel");

  EXPECT_EQ(other.encrypt(iv, data), expected);  // free again
  EXPECT_EQ(other.last_driver(), "accel");
}

// Where software serves more than the device under load, a device found
// shared stays avoided for a while (SessionCore::kSharedWindow, 50 ms)
// even once it is free; then it is tried again.
TEST(Relief, SharedDeviceYieldsToSoftwareForAWhile) {
  BusyDeviceBed bed(true);
  Framework& f = *bed.framework;
  ASSERT_TRUE(f.dispatch_info().profiled) << f.dispatch_info().detail;
  const auto key = random_bytes(16), iv = random_bytes(16), data = random_bytes(1024);
  CipherSession holder("aes-128-cbc", key, {.framework = &f});
  CipherSession other("aes-128-cbc", key, {.framework = &f});
  const auto expected = other.encrypt(iv, data);
  EXPECT_EQ(other.last_driver(), "accel");

  auto held = bed.hold_device(holder, iv, data);
  // The window of sharing (50 ms) opens no sooner than this.
  const auto shared_at = std::chrono::steady_clock::now();
  EXPECT_EQ(other.encrypt(iv, data), expected);
  EXPECT_EQ(other.last_driver(), "soft");
  bed.faults.release();
  EXPECT_EQ(held.get(), expected);
  EXPECT_EQ(other.encrypt(iv, data), expected);  // the device is free, but was shared just now
  // Unless the machine was so slow (qemu-user beside other builds) that
  // the window had closed by the time this request was done.
  if (std::chrono::steady_clock::now() - shared_at < std::chrono::milliseconds(50)) {
    EXPECT_EQ(other.last_driver(), "soft");
  }

  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(other.encrypt(iv, data), expected);
  EXPECT_EQ(other.last_driver(), "accel");
}

// Each unusable profile: not used, with a reason naming the problem, and
// the default order (software first under `fastest`) for every size.
void expect_refused(const std::string& path, const std::string& reason) {
  DriverControl control;
  Framework f(options_with_accel(control, Policy::fastest, path));
  const DispatchInfo info = f.dispatch_info();
  EXPECT_FALSE(info.profiled);
  EXPECT_NE(info.detail.find(reason), std::string::npos) << info.detail;
  EXPECT_EQ(served(f, 4096), "soft");
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(Profile, MissingCorruptStaleOrOtherVersionIsRefused) {
  DriverControl control;
  expect_refused(temp_path("does-not-exist.json"), "no profile at");

  const std::string path = temp_path("bad.json");
  write(path, "{\"format\": \"cryptoaccel-profile\", \"version\": 1, \"created\"");
  expect_refused(path, "not JSON");
  write(path, "{\"something\": \"else\"}");
  expect_refused(path, "not a cryptoaccel profile");

  std::string text = to_json(crossover_profile(control));
  const auto at = text.find("\"version\": 1");
  ASSERT_NE(at, std::string::npos);
  write(path, text.replace(at, 12, "\"version\": 99"));
  expect_refused(path, "version 99");

  Profile gone = crossover_profile(control);
  gone.drivers["afalg:cbc-aes-aesni"] = "afalg:cbc-aes-aesni | ...";
  save_profile(gone, path);
  expect_refused(path, "driver 'afalg:cbc-aes-aesni' of the profile is gone");

  Profile changed = crossover_profile(control);
  changed.drivers["soft"] = "soft | OpenSSL 1.1.1 | software | priority 100";
  save_profile(changed, path);
  expect_refused(path, "driver 'soft' has changed");

  Profile missing = crossover_profile(control);
  missing.drivers.erase("accel");
  std::erase_if(missing.measurements, [](const Measurement& m) { return m.driver == "accel"; });
  save_profile(missing, path);
  expect_refused(path, "driver 'accel' is new");

  text = to_json(crossover_profile(control));
  write(path, text.replace(text.find("\"bytes_per_second\""), 18, "\"bytes_per_secnd\""));
  expect_refused(path, "has no \"bytes_per_second\"");
  std::remove(path.c_str());
}

TEST(Profile, SaveLeavesNoHalfWrittenFile) {
  DriverControl control;
  EXPECT_THROW(save_profile(crossover_profile(control), "/proc/no/such/dir/profile.json"), Error);
}

// The library's save keeps what the user gave the file it replaces, as the
// command's -o does (it forced 0644 on a 0600 file), and never turns a
// device into a regular file.
TEST(Profile, SaveKeepsTheFilesModeAndRefusesDevices) {
  DriverControl control;
  const Profile profile = crossover_profile(control);
  const std::string path = temp_path("mode.json");
  { std::ofstream(path) << "old"; }
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  save_profile(profile, path);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(load_profile(path).measurements.size(), profile.measurements.size());
  std::remove(path.c_str());

  const mode_t mask = ::umask(022);
  save_profile(profile, path);  // a new file: 0666 & ~umask
  ::umask(mask);
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  std::remove(path.c_str());

  EXPECT_THROW(save_profile(profile, "/dev/null"), InvalidArgument);
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(Quarantine, FailingDriverIsSkippedThenRetried) {
  DriverControl control;
  FrameworkOptions o = options_with_accel(control, Policy::offload, "");
  o.failures_to_quarantine = 3;
  o.quarantine_ms = 200;
  Framework f(std::move(o));
  const int self_tests = control.processed.load();  // the KAT run at registration
  control.behaviour = Behaviour::fail_requests;
  const auto key = random_bytes(16), iv = random_bytes(16);
  CipherSession s("aes-128-cbc", key, {.framework = &f});
  CipherSession soft("aes-128-cbc", key, {.driver = "soft"});
  for (int i = 0; i < 3; ++i) {
    const auto in = random_bytes(64);
    EXPECT_EQ(s.encrypt(iv, in), soft.encrypt(iv, in));  // failed over, right answer
    EXPECT_EQ(s.last_driver(), "soft");
  }
  EXPECT_EQ(control.processed.load(), self_tests + 3);
  ASSERT_EQ(f.dispatch_info().quarantined, std::vector<std::string>{"accel"});
  for (int i = 0; i < 10; ++i) s.encrypt(iv, random_bytes(64));
  EXPECT_EQ(control.processed.load(), self_tests + 3) << "a quarantined driver got requests";
  control.behaviour = Behaviour::correct;
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_TRUE(f.dispatch_info().quarantined.empty());
  const auto in = random_bytes(64);
  EXPECT_EQ(s.encrypt(iv, in), soft.encrypt(iv, in));
  EXPECT_EQ(s.last_driver(), "accel") << "not retried after its quarantine";
}

TEST(Quarantine, PinnedDriverIsUsedWhateverItsHealth) {
  DriverControl control;
  FrameworkOptions o = options_with_accel(control, Policy::offload, "");
  o.failures_to_quarantine = 1;
  o.quarantine_ms = 60000;
  Framework f(std::move(o));
  control.behaviour = Behaviour::fail_requests;
  CipherSession s("aes-128-cbc", random_bytes(16), {.framework = &f});
  s.encrypt(random_bytes(16), random_bytes(32));
  ASSERT_EQ(f.dispatch_info().quarantined.size(), 1u);
  control.behaviour = Behaviour::correct;
  CipherSession pinned("aes-128-cbc", random_bytes(16), {.framework = &f, .driver = "accel"});
  pinned.encrypt(random_bytes(16), random_bytes(32));
  EXPECT_EQ(pinned.last_driver(), "accel");
}

}  // namespace
}  // namespace cryptoaccel
