// The dispatcher and a driver that gathers (as mb does): calibrated at
// several depths, it gets a batch only from the depth on where it beats the
// best driver for one request, and never a lone request.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cryptoaccel/cryptoaccel.hpp"
#include "test_drivers.hpp"
#include "test_util.hpp"

namespace cryptoaccel {
namespace {

using test::ByteVector;
using test::DriverControl;
using test::random_bytes;

FrameworkOptions options_with_batcher(DriverControl& control, std::string profile) {
  FrameworkOptions o;
  o.excluded_families = {"afalg", "cryptodev", "mb"};
  o.profile_path = std::move(profile);
  o.drivers.push_back(std::make_unique<test::TestCbcDriver>("batcher", DriverKind::software,
                                                            control, /*gathers=*/true));
  return o;
}

// soft: 1 GB/s for one request. batcher: 0.1 GB/s alone, 0.5 at 4 in a
// batch, 2 at 8, 4 at 16: it wins from 8 requests on.
std::string write_depth_profile(DriverControl& control) {
  Framework probe(options_with_batcher(control, ""));
  Profile p;
  p.created = "2026-12-02T00:00:00Z";
  for (const DriverInfo& d : probe.drivers())
    if (d.traits.automatic) p.drivers[d.name] = driver_identity(d);
  for (std::size_t size : kSizeBuckets) {
    if (size > 4096) continue;  // the test driver takes 4096 at most
    const auto add = [&](const char* driver, unsigned depth, double rate) {
      p.measurements.push_back({.driver = driver,
                                .algorithm = AlgorithmId::aes_128_cbc,
                                .size = size,
                                .in_flight = depth,
                                .bytes_per_second = rate,
                                .cpu_seconds_per_byte = 1e-9});
    };
    add("soft", 1, 1e9);
    add("batcher", 1, 1e8);
    add("batcher", 4, 5e8);
    add("batcher", 8, 2e9);
    add("batcher", 16, 4e9);
  }
  const std::string path =
      testing::TempDir() + "depth-profile-" + std::to_string(getpid()) + ".json";
  save_profile(p, path);
  return path;
}

// The requests each driver served when `n` requests of 256 bytes go to the
// batch API at once.
std::vector<UsageCount> usage_of_batch(Framework& f, std::size_t n) {
  const auto before = f.usage();
  {
    const ByteVector key = random_bytes(16);
    CipherSession s("aes-128-cbc", key, {.framework = &f});
    std::vector<ByteVector> ivs, data;
    std::vector<Request> batch;
    for (std::size_t i = 0; i < n; ++i) {
      ivs.push_back(random_bytes(16));
      data.push_back(random_bytes(256));
    }
    for (std::size_t i = 0; i < n; ++i)
      batch.push_back({.op = Operation::encrypt, .iv = ivs[i], .in = data[i], .out = data[i]});
    EXPECT_EQ(s.process(batch), n);
  }  // the session publishes its counts as it closes
  std::vector<UsageCount> delta;
  for (UsageCount u : f.usage()) {
    for (const UsageCount& b : before)
      if (b.driver == u.driver && b.algorithm == u.algorithm) u.requests -= b.requests;
    if (u.requests != 0) delta.push_back(u);
  }
  return delta;
}

std::uint64_t served_by(const std::vector<UsageCount>& usage, const std::string& driver) {
  for (const UsageCount& u : usage)
    if (u.driver == driver) return u.requests;
  return 0;
}

TEST(DispatchDepth, ABatchGoesToTheGathererFromTheDepthWhereItWins) {
  DriverControl control;
  const std::string path = write_depth_profile(control);
  Framework f(options_with_batcher(control, path));
  ASSERT_TRUE(f.dispatch_info().profiled) << f.dispatch_info().detail;
  for (const std::size_t n : {1, 2, 4, 7}) {
    SCOPED_TRACE(n);
    const auto usage = usage_of_batch(f, n);
    EXPECT_EQ(served_by(usage, "soft"), n);
    EXPECT_EQ(served_by(usage, "batcher"), 0u);
  }
  for (const std::size_t n : {8, 16, 40}) {
    SCOPED_TRACE(n);
    const auto usage = usage_of_batch(f, n);
    EXPECT_EQ(served_by(usage, "batcher"), n);
    EXPECT_EQ(served_by(usage, "soft"), 0u);
  }
  std::remove(path.c_str());
}

TEST(DispatchDepth, ALoneRequestNeverGoesToTheGatherer) {
  DriverControl control;
  const std::string path = write_depth_profile(control);
  Framework f(options_with_batcher(control, path));
  const int before = control.processed.load();  // the self-test's requests
  CipherSession s("aes-128-cbc", random_bytes(16), {.framework = &f});
  const ByteVector iv = random_bytes(16);
  for (int i = 0; i < 50; ++i) s.encrypt(iv, random_bytes(256));
  EXPECT_EQ(s.last_driver(), "soft");
  EXPECT_EQ(control.processed.load(), before);
  std::remove(path.c_str());
}

// Under `offload` the order is about saving CPU, not speed: no gathering.
TEST(DispatchDepth, OnlyUnderFastest) {
  DriverControl control;
  const std::string path = write_depth_profile(control);
  FrameworkOptions o = options_with_batcher(control, path);
  o.policy = Policy::offload;
  Framework f(std::move(o));
  const auto usage = usage_of_batch(f, 16);
  EXPECT_EQ(served_by(usage, "soft"), 16u);
  EXPECT_EQ(served_by(usage, "batcher"), 0u);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace cryptoaccel
