// A driver whose answers are wrong is caught at registration, disabled,
// reported, and never used.
#include <gtest/gtest.h>

#include "cryptoaccel/cryptoaccel.hpp"
#include "test_drivers.hpp"
#include "test_util.hpp"

namespace cryptoaccel {
namespace {

using test::Behaviour;
using test::DriverControl;
using test::random_bytes;

std::unique_ptr<Framework> framework_with(const char* name, DriverControl& control,
                                          Policy policy = Policy::offload) {
  FrameworkOptions options;
  options.policy = policy;
  options.drivers.push_back(
      std::make_unique<test::TestCbcDriver>(name, DriverKind::hardware, control));
  return std::make_unique<Framework>(std::move(options));
}

TEST(SelfTest, SoftPassesEveryAlgorithm) {
  for (const DriverInfo& d : Framework::global().drivers()) {
    if (d.name != "soft") continue;
    EXPECT_EQ(d.capabilities.size(), kAlgorithmCount);
    for (const SelfTestResult& t : d.self_tests) {
      EXPECT_TRUE(t.tested);
      EXPECT_TRUE(t.passed) << algorithm(t.algorithm).name << ": " << t.detail;
    }
    return;
  }
  FAIL() << "no soft driver";
}

TEST(SelfTest, WrongAnswersDisableTheAlgorithm) {
  DriverControl control;
  control.behaviour = Behaviour::wrong_answers;
  auto framework = framework_with("liar", control);
  bool found = false;
  for (const DriverInfo& d : framework->drivers()) {
    if (d.name != "liar") continue;
    found = true;
    ASSERT_EQ(d.self_tests.size(), 1u);
    EXPECT_FALSE(d.self_tests[0].passed);
    EXPECT_NE(d.self_tests[0].detail.find("wrong answer"), std::string::npos)
        << d.self_tests[0].detail;
  }
  EXPECT_TRUE(found);

  // Never chosen automatically, even under `offload` where it would lead.
  const int before = control.processed;
  CipherSession s("aes-128-cbc", random_bytes(16), {.framework = framework.get()});
  s.encrypt(random_bytes(16), random_bytes(32));
  EXPECT_EQ(s.last_driver(), "soft");
  EXPECT_EQ(control.processed, before);

  // Pinned, it is refused with the reason.
  try {
    CipherSession pinned("aes-128-cbc", random_bytes(16),
                         {.framework = framework.get(), .driver = "liar"});
    FAIL() << "a disabled algorithm was accepted";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("self-test failed"), std::string::npos) << e.what();
  }
}

TEST(SelfTest, DuplicateDriverNamesAreRefused) {
  DriverControl control;
  FrameworkOptions options;
  options.drivers.push_back(
      std::make_unique<test::TestCbcDriver>("soft", DriverKind::hardware, control));
  EXPECT_THROW(Framework{std::move(options)}, InvalidArgument);
}

}  // namespace
}  // namespace cryptoaccel
