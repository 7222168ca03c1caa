// `cryptoaccel rng` and `cryptoaccel rngtest --source` as a user runs them:
// sources through their health tests, a failing source stopping with a
// clear error and the right exit status, files written whole or not at all.
// (rngtest on stdin is compared with rng-tools' own in tests/rng.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "build_paths.hpp"
#include "test_util.hpp"

namespace {

namespace fs = std::filesystem;

cryptoaccel::test::ShellRun run(const std::string& args) {
  return cryptoaccel::test::run_shell(std::string(cryptoaccel::build_paths::kCli) + " " + args +
                                      " 2>&1");
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class RngCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cryptoaccel-rng-cli-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "zeros", std::ios::binary) << std::string(8192, '\0');
    const auto good = cryptoaccel::test::random_bytes(10000);
    std::ofstream(dir_ / "good", std::ios::binary)
        .write(reinterpret_cast<const char*>(good.data()),
               static_cast<std::streamsize>(good.size()));
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST_F(RngCli, RngtestReadsOurSources) {
  const auto r = run("rngtest --source getrandom -c 20");
  EXPECT_TRUE(r.status == 0 || r.status == 1) << r.out;  // 1: a block may fail by chance
  EXPECT_TRUE(contains(r.out, "rngtest: bits received from input: 400032")) << r.out;
  EXPECT_TRUE(contains(r.out, "rngtest: FIPS 140-2(2001-10-10) Continuous run:")) << r.out;
}

TEST_F(RngCli, RngtestStopsAtAFailingHealthTest) {
  const auto r = run("rngtest --source file:" + path("zeros"));
  EXPECT_EQ(r.status, 11) << r.out;  // rngtest's "input error"
  EXPECT_TRUE(contains(r.out, "rngtest: error reading input: file:" + path("zeros") +
                                  ": SP 800-90B repetition count test failed"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "rngtest: FIPS 140-2 successes: 0")) << r.out;
}

TEST_F(RngCli, RngtestUsageErrorsExitTen) {
  EXPECT_EQ(run("rngtest --source nonsense").status, 10);
  EXPECT_EQ(run("rngtest --source").status, 10);
  EXPECT_EQ(run("rngtest -t x").status, 10);
  const auto help = run("rngtest --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_TRUE(contains(help.out, "--blockcount=n")) << help.out;
  // Short options with their values, as rngtest takes them.
  const auto r = run("rngtest -c 0x2 -b1 < " + path("good"));
  EXPECT_TRUE(contains(r.out, "rngtest: bits received from input: 40032")) << r.out;
  EXPECT_TRUE(contains(r.out, "rngtest: bits received from input: 20032")) << r.out;
}

TEST_F(RngCli, RngWritesAFileWholeOrNotAtAll) {
  const auto ok = run("rng -n 1K --source getrandom -o " + path("out"));
  ASSERT_EQ(ok.status, 0) << ok.out;
  EXPECT_EQ(fs::file_size(path("out")), 1024u);

  const auto bad = run("rng -n 4000 --source file:" + path("zeros") + " -o " + path("bad"));
  EXPECT_EQ(bad.status, 1) << bad.out;
  EXPECT_TRUE(contains(bad.out, "repetition count test failed")) << bad.out;
  EXPECT_TRUE(contains(bad.out, "out of service")) << bad.out;
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 3u) << "a partial or temporary file was left behind";

  const auto short_input = run("rng -n 20000 --source file:" + path("good") + " -o " + path("x"));
  EXPECT_EQ(short_input.status, 1);
  EXPECT_TRUE(contains(short_input.out, "ended after 10000 of the 20000 bytes")) << short_input.out;
  EXPECT_FALSE(fs::exists(path("x")));
}

TEST_F(RngCli, RngRejectsBadCountsAndUnknownSources) {
  EXPECT_NE(run("rng -n 0 --source getrandom").status, 0);
  EXPECT_NE(run("rng -n 12Q --source getrandom").status, 0);
  EXPECT_EQ(run("rng --source getrandom").status, 2);  // -n is required
  const auto unknown = run("rng -n 1 --source nonsense");
  EXPECT_EQ(unknown.status, 1);
  EXPECT_TRUE(contains(unknown.out, "no random source named 'nonsense'")) << unknown.out;
  const auto piped = run("rng -n 100 --source getrandom | wc -c");
  EXPECT_EQ(piped.out, "100\n");
}

TEST_F(RngCli, ListShowsTheRandomSources) {
  const auto r =
      cryptoaccel::test::run_shell(std::string(cryptoaccel::build_paths::kCli) + " list --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  bool getrandom = false;
  for (const auto& s : j.at("random_sources")) {
    if (s.at("name") == "getrandom") getrandom = s.at("available").get<bool>();
    EXPECT_EQ(s.at("claimed_entropy_per_byte"), 2.0);
  }
  EXPECT_TRUE(getrandom);
}

}  // namespace
