// How the dpdk driver is enabled, each test in a process of its own (EAL
// starts once per process): a process that does not ask loads nothing of
// DPDK; one that does gets an instance per device and the reasons for the
// devices that gave none; a later framework shares the running EAL; EAL's
// refusal and a malformed setting are reported, not retried or started.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel {
namespace {

constexpr const char* kDevices[] = {"dpdk:crypto_aesni_mb0", "dpdk:crypto_openssl0",
                                    "dpdk:crypto_scheduler0"};

const DriverInfo* find_driver(const Framework& framework, std::string_view name) {
  static thread_local std::vector<DriverInfo> drivers;
  drivers = framework.drivers();
  for (const DriverInfo& d : drivers)
    if (d.name == name) return &d;
  return nullptr;
}

std::string process_maps() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str();
}

TEST(DpdkConfig, AProcessThatDoesNotAskLoadsNothingOfDpdk) {
  const Framework framework(FrameworkOptions{.family_settings = {{"dpdk", ""}}});
  bool listed_absent = false;
  for (const AbsentDriver& a : framework.absent())
    if (a.family == "dpdk") {
      listed_absent = true;
      EXPECT_NE(a.reason.find("not configured"), std::string::npos) << a.reason;
      EXPECT_NE(a.reason.find("CRYPTOACCEL_DPDK="), std::string::npos)
          << "the reason gives the line that enables it: " << a.reason;
    }
  EXPECT_TRUE(listed_absent);
  const std::string maps = process_maps();
  EXPECT_EQ(maps.find("cryptoaccel-dpdk.so"), std::string::npos);
  EXPECT_EQ(maps.find("librte_eal"), std::string::npos);
}

TEST(DpdkConfig, AnInstancePerDeviceAndWhyTheSchedulersWorkersGaveNone) {
  const Framework framework(
      FrameworkOptions{.family_settings = {{"dpdk", CRYPTOACCEL_TEST_DPDK_ARGUMENTS}}});
  for (const char* name : kDevices) {
    SCOPED_TRACE(name);
    const DriverInfo* d = find_driver(framework, name);
    ASSERT_NE(d, nullptr) << "CRYPTOACCEL_DPDK should have made this device";
    EXPECT_FALSE(d->capabilities.empty());
    for (const SelfTestResult& r : d->self_tests) EXPECT_TRUE(r.passed) << r.detail;
  }
  EXPECT_EQ(find_driver(framework, "dpdk:crypto_aesni_mb1"), nullptr);
  int workers_explained = 0;
  for (const std::string& note : framework.notes())
    if (note.find("a worker of the scheduler crypto_scheduler0") != std::string::npos)
      ++workers_explained;
  EXPECT_EQ(workers_explained, 2);
}

TEST(DpdkConfig, ALaterFrameworkSharesTheRunningEal) {
  const Framework first(
      FrameworkOptions{.family_settings = {{"dpdk", CRYPTOACCEL_TEST_DPDK_ARGUMENTS}}});
  const Framework second(
      FrameworkOptions{.family_settings = {{"dpdk", "--no-huge -m 64 --vdev crypto_null0"}}});
  bool shared = false;
  for (const std::string& note : second.notes())
    shared = shared || note.find("(shared)") != std::string::npos;
  EXPECT_TRUE(shared) << "EAL starts once per process; the second framework uses the first's";
  EXPECT_NE(find_driver(second, "dpdk:crypto_aesni_mb0"), nullptr);
}

TEST(DpdkConfig, ArgumentsEalRefusesAreReportedAndNotRetried) {
  const Framework bad(FrameworkOptions{.family_settings = {{"dpdk", "--no-such-eal-option"}}});
  std::string reason;
  for (const AbsentDriver& a : bad.absent())
    if (a.family == "dpdk") reason = a.reason;
  EXPECT_NE(reason.find("rte_eal_init failed"), std::string::npos) << reason;
  const Framework good(FrameworkOptions{
      .family_settings = {{"dpdk", "--no-huge -m 64 --vdev crypto_aesni_mb0"}}});
  reason.clear();
  for (const AbsentDriver& a : good.absent())
    if (a.family == "dpdk") reason = a.reason;
  EXPECT_NE(reason.find("once per process"), std::string::npos) << reason;
}

TEST(DpdkConfig, AnUnclosedQuoteIsReportedAndStartsNothing) {
  const Framework framework(
      FrameworkOptions{.family_settings = {{"dpdk", "--vdev 'crypto_null0"}}});
  std::string reason;
  for (const AbsentDriver& a : framework.absent())
    if (a.family == "dpdk") reason = a.reason;
  EXPECT_NE(reason.find("quote open"), std::string::npos) << reason;
  EXPECT_EQ(process_maps().find("librte_eal"), std::string::npos);
}

}  // namespace
}  // namespace cryptoaccel
