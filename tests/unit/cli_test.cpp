// The `cryptoaccel` command as a user runs it: output parsed back, errors
// give a message and a non-zero exit.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>

#include <string>
#include "build_paths.hpp"
#include "test_util.hpp"

namespace {

struct CliRun {
  int status = -1;
  std::string out;  // stdout and stderr, in order
};

CliRun run(const std::string& args) {
  const auto r = cryptoaccel::test::run_shell(std::string(cryptoaccel::build_paths::kCli) + " " +
                                              args + " 2>&1");
  return {r.status, r.out};
}

// The command with an environment setting, killed after 60 s (a hang fails;
// a `list` under qemu-user on a loaded machine has taken over 10 s).
CliRun run_env(const std::string& env, const std::string& args) {
  const auto r = cryptoaccel::test::run_shell(
      env + " timeout 60 " + std::string(cryptoaccel::build_paths::kCli) + " " + args + " 2>&1");
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
      EXPECT_EQ(d.at("algorithms").size(), 35u);
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
  EXPECT_EQ(j.at("algorithms").size(), 35u);
  EXPECT_EQ(j.at("policy"), "fastest");
}

TEST(Cli, ListTextSummarisesDrivers) {
  const CliRun r = run("list");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("35/35 passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pinned only"), std::string::npos) << r.out;
  const CliRun verbose = run("list -v --algorithms");
  ASSERT_EQ(verbose.status, 0);
  EXPECT_NE(verbose.out.find("CAVP CBCMMT128.rsp"), std::string::npos);
  EXPECT_NE(verbose.out.find("INSECURE"), std::string::npos);
}

TEST(Cli, PolicyFromTheEnvironment) {
  const CliRun r =
      run("list --json | grep '\"policy\"'; CRYPTOACCEL_POLICY=offload " +
          std::string(cryptoaccel::build_paths::kCli) + " list --json | grep '\"policy\"'");
  EXPECT_NE(r.out.find("offload"), std::string::npos) << r.out;
  const CliRun bad = run("list");
  EXPECT_EQ(bad.status, 0);
  const CliRun ignored = run("list; CRYPTOACCEL_POLICY=bogus " +
                             std::string(cryptoaccel::build_paths::kCli) + " list");
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

// `list --kernel`: the kernel's own choice per algorithm, as text and JSON.
TEST(Cli, ListKernelShowsTheKernelsOwnChoices) {
  CliRun r = run("list --kernel");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("The kernel's own crypto"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ALGORITHM"), std::string::npos) << r.out;
  r = run("list --kernel --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto view = nlohmann::json::parse(r.out);
  EXPECT_TRUE(view.at("readable").get<bool>());
  EXPECT_FALSE(view.at("algorithms").empty());
  for (const auto& a : view.at("algorithms")) {
    EXPECT_TRUE(a.contains("name") && a.contains("chosen") && a.contains("others")) << a;
  }
}

// A profile the command cannot use: `list` still answers, at once, and its
// "Dispatch:" line says why (issue 15, items 7 and 8). `timeout` turns a
// hang into a failure.
TEST(Cli, ListExplainsAnUnusableProfilePromptly) {
  const std::string dir = ::testing::TempDir() + "cryptoaccel-cli-" + std::to_string(::getpid());
  cryptoaccel::test::run_shell("mkdir -p " + dir);
  const std::string fifo = dir + "/fifo";
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  CliRun r = run_env("CRYPTOACCEL_PROFILE=" + fifo, "list");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("Dispatch: conservative default"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(fifo + ": not a regular file; not used"), std::string::npos) << r.out;

  r = run_env("CRYPTOACCEL_PROFILE=/dev/urandom", "list --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j.at("dispatch").at("profiled").get<bool>());
  EXPECT_NE(j.at("dispatch").at("detail").get<std::string>().find("not a regular file"),
            std::string::npos);

  const std::string big = dir + "/version.json";
  {
    std::FILE* f = std::fopen(big.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("{\"format\": \"cryptoaccel-profile\", \"version\": 1e400}", f);
    std::fclose(f);
  }
  r = run_env("CRYPTOACCEL_PROFILE=" + big, "list");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("internal error"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1e400"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"version\""), std::string::npos) << r.out;
  std::remove(fifo.c_str());
  std::remove(big.c_str());
  ::rmdir(dir.c_str());
}

}  // namespace
