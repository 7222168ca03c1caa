// The `cryptoaccel` command as a user runs it: output parsed back, errors
// give a message and a non-zero exit.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>

#include <string>
#include "test_util.hpp"

namespace {

struct CliRun {
  int status = -1;
  std::string out;  // stdout and stderr, in order
};

CliRun run(const std::string& args) {
  const auto r = cryptoaccel::test::run_shell(std::string(CRYPTOACCEL_CLI) + " " + args + " 2>&1");
  return {r.status, r.out};
}

TEST(Cli, ListJsonShowsSoftWithEveryAlgorithmPassing) {
  const CliRun r = run("list --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  bool soft = false, null = false;
  for (const auto& d : j.at("drivers")) {
    if (d.at("name") == "soft") {
      soft = true;
      EXPECT_EQ(d.at("kind"), "software");
      EXPECT_TRUE(d.at("automatic").get<bool>());
      EXPECT_EQ(d.at("algorithms").size(), 30u);
      for (const auto& a : d.at("algorithms")) EXPECT_EQ(a.at("self_test"), "passed") << a;
    }
    if (d.at("name") == "null") {
      null = true;
      EXPECT_FALSE(d.at("automatic").get<bool>());
      EXPECT_EQ(d.at("algorithms")[0].at("self_test"), "not tested");
    }
  }
  EXPECT_TRUE(soft);
  EXPECT_TRUE(null);
  EXPECT_TRUE(j.at("absent").is_array());
  EXPECT_EQ(j.at("algorithms").size(), 30u);
  EXPECT_EQ(j.at("policy"), "fastest");
}

TEST(Cli, ListTextSummarisesDrivers) {
  const CliRun r = run("list");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("30/30 passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pinned only"), std::string::npos) << r.out;
  const CliRun verbose = run("list -v --algorithms");
  ASSERT_EQ(verbose.status, 0);
  EXPECT_NE(verbose.out.find("CAVP CBCMMT128.rsp"), std::string::npos);
  EXPECT_NE(verbose.out.find("INSECURE"), std::string::npos);
}

TEST(Cli, PolicyFromTheEnvironment) {
  const CliRun r = run("list --json | grep '\"policy\"'; CRYPTOACCEL_POLICY=offload " +
                       std::string(CRYPTOACCEL_CLI) + " list --json | grep '\"policy\"'");
  EXPECT_NE(r.out.find("offload"), std::string::npos) << r.out;
  const CliRun bad = run("list");
  EXPECT_EQ(bad.status, 0);
  const CliRun ignored =
      run("list; CRYPTOACCEL_POLICY=bogus " + std::string(CRYPTOACCEL_CLI) + " list");
  EXPECT_NE(ignored.out.find("CRYPTOACCEL_POLICY ignored"), std::string::npos) << ignored.out;
}

TEST(Cli, HelpAndVersion) {
  const CliRun help = run("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("list"), std::string::npos);
  const CliRun list_help = run("list --help");
  EXPECT_EQ(list_help.status, 0);
  EXPECT_NE(list_help.out.find("--json"), std::string::npos);
  const CliRun version = run("--version");
  EXPECT_EQ(version.status, 0);
  EXPECT_NE(version.out.find("cryptoaccel 0."), std::string::npos);
}

TEST(Cli, UsageErrorsExitTwoWithAMessage) {
  for (const char* args : {"", "frobnicate", "list --bogus"}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.out;
    EXPECT_FALSE(r.out.empty()) << args;
  }
}

}  // namespace
