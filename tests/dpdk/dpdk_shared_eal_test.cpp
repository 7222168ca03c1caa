// An application that started DPDK's EAL itself, then enables the dpdk
// driver (or two copies of cryptoaccel in one process, where the second
// finds the first's EAL): EAL is shared, the application keeps its log
// stream and its devices, and cryptoaccel uses only the devices its own
// arguments name, adding those the application's EAL has not. Each test
// in a process of its own (EAL starts once per process); this suite links
// DPDK itself, as such an application does.
#include <gtest/gtest.h>
#include <stdio.h>

#include <cstdio>

#include <string>

#include <rte_cryptodev.h>
#include <rte_eal.h>
#include <rte_log.h>

#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel {
namespace {

bool has_note(const Framework& f, std::string_view text) {
  for (const std::string& n : f.notes())
    if (n.find(text) != std::string::npos) return true;
  return false;
}

// What the application does first: EAL started with its own device,
// crypto_aesni_mb0, and its DPDK log pointed at a file of its own.
struct Application {
  FILE* log = nullptr;
  int device = -1;
};

Application start_application_eal() {
  char a0[] = "app", a1[] = "--no-huge", a2[] = "-m", a3[] = "256", a4[] = "--no-shconf",
       a5[] = "--no-pci", a6[] = "--vdev", a7[] = "crypto_aesni_mb0", a8[] = "-l", a9[] = "0",
       a10[] = "--no-telemetry";
  char* argv[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, nullptr};
  Application app;
  if (rte_eal_init(11, argv) < 0) return app;
  app.log = tmpfile();
  if (app.log == nullptr || rte_openlog_stream(app.log) != 0) return app;
  app.device = rte_cryptodev_get_dev_id("crypto_aesni_mb0");
  return app;
}

// The application configures its own device, as it planned to.
int configure_as_the_application(int device) {
  rte_cryptodev_config config{};
  config.socket_id = SOCKET_ID_ANY;
  config.nb_queue_pairs = 1;
  return rte_cryptodev_configure(static_cast<std::uint8_t>(device), &config);
}

TEST(DpdkSharedEal, TheApplicationKeepsItsLogAndItsDevices) {
  const Application app = start_application_eal();
  ASSERT_GE(app.device, 0) << "the application could not start EAL";
  FILE* const application_log = app.log;
  const int application_device = app.device;

  const Framework framework(FrameworkOptions{
      .family_settings = {{"dpdk", "--no-huge -m 256 --vdev crypto_openssl0 --vdev crypto_aesni_mb0"}}});
  EXPECT_TRUE(has_note(framework, "EAL was already running in this process"));
  // The device the application's EAL made is the application's, although
  // the arguments name it too: it may configure it after this.
  EXPECT_TRUE(has_note(framework, "crypto_aesni_mb0 gave no instance: not cryptoaccel's"))
      << "the application's device was used";
  EXPECT_EQ(rte_cryptodev_queue_pair_count(static_cast<std::uint8_t>(application_device)), 0)
      << "cryptoaccel configured the application's device";
  // The device only cryptoaccel's arguments name is added, and serves.
  bool added = false;
  for (const DriverInfo& d : framework.drivers()) added |= d.name == "dpdk:crypto_openssl0";
  EXPECT_TRUE(added);
  EXPECT_EQ(rte_log_get_stream(), application_log) << "cryptoaccel took the application's log";

  EXPECT_EQ(configure_as_the_application(application_device), 0);
}

// A scheduler the driver's arguments add, over a device of the
// application's: starting it would configure the application's device
// (whose own configure then fails), so it is left unstarted, and nothing
// the PMDs say of it reaches the application's log.
TEST(DpdkSharedEal, ASchedulerOverTheApplicationsDeviceIsLeftUnstarted) {
  const Application app = start_application_eal();
  ASSERT_GE(app.device, 0) << "the application could not start EAL";
  FILE* const application_log = app.log;
  const int application_device = app.device;

  const Framework framework(FrameworkOptions{
      .family_settings = {{"dpdk",
                           "--no-huge -m 256 --vdev crypto_aesni_mb1 --vdev "
                           "crypto_scheduler0,worker=crypto_aesni_mb0,worker=crypto_aesni_mb1"}}});
  EXPECT_TRUE(has_note(framework, "crypto_scheduler0 gave no instance: a scheduler over "
                                  "crypto_aesni_mb0, which is not cryptoaccel's"));
  EXPECT_EQ(rte_cryptodev_queue_pair_count(static_cast<std::uint8_t>(application_device)), 0);
  EXPECT_EQ(configure_as_the_application(application_device), 0);
  std::fflush(application_log);
  EXPECT_EQ(std::ftell(application_log), 0) << "the PMDs' lines reached the application's log";
}

}  // namespace
}  // namespace cryptoaccel
