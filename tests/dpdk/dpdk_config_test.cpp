// How the dpdk driver is enabled, each test in a process of its own (EAL
// starts once per process): a process that does not ask loads nothing of
// DPDK; one that does gets an instance per device and the reasons for the
// devices that gave none; a later framework shares the running EAL; EAL's
// refusal and a malformed setting are reported, not retried or started.
#include <gtest/gtest.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

// A scheduler in multi-core mode runs requests on its own lcores through
// rings every queue pair shares, so a thread's burst could take another's
// operations and a burst given up on would leave the caller's memory in
// the device's hands: it gives no instance, and says why.
TEST(DpdkConfig, AMultiCoreSchedulerGivesNoInstanceAndSaysWhy) {
  const Framework framework(FrameworkOptions{
      .family_settings = {{"dpdk",
                           "--no-huge -m 256 --lcores 0@0,1@0 --vdev crypto_aesni_mb1 --vdev "
                           "crypto_aesni_mb2 --vdev crypto_scheduler0,worker=crypto_aesni_mb1,"
                           "worker=crypto_aesni_mb2,mode=multi-core,corelist=1"}}});
  EXPECT_EQ(find_driver(framework, "dpdk:crypto_scheduler0"), nullptr);
  bool explained = false;
  for (const std::string& note : framework.notes())
    explained = explained ||
                note.find("crypto_scheduler0 gave no instance: a scheduler in multi-core mode") !=
                    std::string::npos;
  EXPECT_TRUE(explained);
}

// EAL refuses a combination of its options (and prints its usage, which
// stays off the application's standard output).
TEST(DpdkConfig, ArgumentsEalRefusesAreReportedAndNotRetried) {
  testing::internal::CaptureStdout();
  const Framework bad(
      FrameworkOptions{.family_settings = {{"dpdk", "--no-huge --in-memory -m 64"}}});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
  std::string reason;
  for (const AbsentDriver& a : bad.absent())
    if (a.family == "dpdk") reason = a.reason;
  EXPECT_NE(reason.find("rte_eal_init failed"), std::string::npos) << reason;
  const Framework good(
      FrameworkOptions{.family_settings = {{"dpdk", "--no-huge -m 64 --vdev crypto_aesni_mb0"}}});
  reason.clear();
  for (const AbsentDriver& a : good.absent())
    if (a.family == "dpdk") reason = a.reason;
  EXPECT_NE(reason.find("once per process"), std::string::npos) << reason;
}

// EAL prints its usage on standard output for an option it does not know
// or a CPU list it cannot use (-h: and exits): such arguments are refused
// before EAL sees them, and the application's output stays its own.
TEST(DpdkConfig, UnknownOptionsAndForbiddenCpusAreRefusedBeforeEalPrintsAnything) {
  cpu_set_t allowed;
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof allowed, &allowed), 0);
  int forbidden = 0;
  while (forbidden < CPU_SETSIZE && CPU_ISSET(forbidden, &allowed)) ++forbidden;
  const std::pair<std::string, std::string> cases[] = {
      {"--no-huge -m 64 --bogus-option --vdev crypto_null0", "'--bogus-option'"},
      {"-h", "'-h'"},
      {"--help", "'--help'"},
      {"--no-huge -l " + std::to_string(forbidden), "names CPU " + std::to_string(forbidden)},
      {"--no-huge -l 0-x", "no CPU or range"}};
  for (const auto& [setting, expected] : cases) {
    SCOPED_TRACE(setting);
    testing::internal::CaptureStdout();
    const Framework framework(FrameworkOptions{.family_settings = {{"dpdk", setting}}});
    EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
    std::string reason;
    for (const AbsentDriver& a : framework.absent())
      if (a.family == "dpdk") reason = a.reason;
    EXPECT_NE(reason.find(expected), std::string::npos) << reason;
  }
  EXPECT_EQ(process_maps().find("librte_eal"), std::string::npos);
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

// A thread that runs batches on `driver` until `stop`, a cancellation
// point between batches.
struct BatchLoop {
  const Framework* framework;
  const char* driver;
  std::atomic<bool>* stop;
};

void* run_batches(void* argument) {
  const auto& loop = *static_cast<BatchLoop*>(argument);
  const std::vector<std::uint8_t> key(16, 7), iv(16, 9);
  CipherSession session(
      "aes-128-cbc", key,
      {.framework = const_cast<Framework*>(loop.framework), .driver = loop.driver});
  std::vector<std::vector<std::uint8_t>> buffers(16, std::vector<std::uint8_t>(1024, 1));
  std::vector<Request> batch;
  for (auto& b : buffers) batch.push_back({.op = Operation::encrypt, .iv = iv, .in = b, .out = b});
  while (!loop.stop->load()) {
    session.process(batch);
    pthread_testcancel();
  }
  return nullptr;
}

// exit() while threads are inside bursts: the static destructors it runs
// must free nothing those threads still use (the backend's devices and
// queue pairs live until the process ends).
TEST(DpdkExit, ExitWhileThreadsRunBatchesEndsCleanly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // The process ends with a framework and sessions alive by design; in the
  // ASan build, LeakSanitizer's check at exit would report what OpenSSL's
  // own exit cleanup leaves of them. The child (a new process) reads this.
  const char* asan = std::getenv("ASAN_OPTIONS");
  setenv("ASAN_OPTIONS", (std::string(asan != nullptr ? asan : "") + ":detect_leaks=0").c_str(), 1);
  for (int round = 0; round < 6; ++round)
    EXPECT_EXIT(
        {
          // Never destroyed, as Framework::global() is not: the threads
          // use them while exit() runs (a static here would be the test's
          // own use after free, which ASan reports).
          const auto* framework = new Framework(
              FrameworkOptions{.family_settings = {{"dpdk", CRYPTOACCEL_TEST_DPDK_ARGUMENTS}}});
          auto* stop = new std::atomic<bool>{false};
          auto* loops = new std::vector<BatchLoop>;
          for (const char* device : kDevices)
            for (int i = 0; i < 2; ++i) loops->push_back({framework, device, stop});
          for (BatchLoop& loop : *loops) {
            pthread_t thread;
            pthread_create(&thread, nullptr, run_batches, &loop);
            pthread_detach(thread);
          }
          usleep(100 * 1000);
          std::exit(0);
        },
        testing::ExitedWithCode(0), "");
}

// A thread cancelled while it waits for one of the device's eight queue
// pairs ends alone: the wait is no cancellation point, the next one of the
// thread's own is.
TEST(DpdkCancel, AThreadCancelledInsideABatchEndsAloneAtItsNextCancellationPoint) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const Framework framework(
            FrameworkOptions{.family_settings = {{"dpdk", CRYPTOACCEL_TEST_DPDK_ARGUMENTS}}});
        std::atomic<bool> stop{false};
        std::vector<BatchLoop> loops(12, BatchLoop{&framework, "dpdk:crypto_aesni_mb0", &stop});
        std::vector<pthread_t> threads(loops.size());
        for (std::size_t i = 0; i < loops.size(); ++i)
          pthread_create(&threads[i], nullptr, run_batches, &loops[i]);
        usleep(100 * 1000);
        for (std::size_t i = 0; i < 4; ++i) pthread_cancel(threads[i]);
        usleep(100 * 1000);
        stop = true;
        int cancelled = 0;
        for (pthread_t thread : threads) {
          void* result = nullptr;
          pthread_join(thread, &result);
          cancelled += result == PTHREAD_CANCELED;
        }
        std::exit(cancelled == 4 ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace cryptoaccel
