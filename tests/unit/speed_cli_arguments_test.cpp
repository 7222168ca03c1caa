// `cryptoaccel speed` as a user runs it: argument errors and help: each bad value named, nothing
// measured. Runs are kept tiny (-seconds 0.01 to 0.5, two or three sizes).
#include <gtest/gtest.h>

#include "speed_cli_support.hpp"

namespace {

using namespace speed_cli;

TEST(SpeedCli, ArgumentErrorsNameTheBadValueAndMeasureNothing) {
  struct Case {
    const char* args;
    int status;
    const char* needle;  // must appear in stderr
  };
  const Case cases[] = {
      {"nosuch-cipher", 1, "unknown algorithm 'nosuch-cipher'"},
      {"-evp nosuch-cipher", 1, "'nosuch-cipher'"},
      {"-hmac nosuch", 1, "nosuch"},
      {"aes-128-cbc --sizes 16,abc", 1, "bad size 'abc'"},
      {"aes-128-cbc --sizes 0", 1, "bad size '0'"},
      {"aes-128-cbc --sizes ''", 1, "bad size ''"},
      {"aes-128-cbc --sizes 16,,64", 1, "bad size ''"},
      {"aes-128-cbc --sizes 16,", 1, "bad size ''"},
      {"aes-128-cbc --sizes -16", 1, "bad size '-16'"},
      {"aes-128-cbc --sizes 99999999999", 1, "bad size '99999999999'"},
      {"aes-128-cbc --driver bogus", 1, "no driver named 'bogus'"},
      {"aes-128-cbc --sizes 17", 1, "aes-128-cbc cannot take 17-byte requests"},
      {"aes-128-cbc --sizes 16,24", 1, "aes-128-cbc cannot take 24-byte requests"},
      {"des-ede3-cbc -bytes 12", 1, "des-ede3-cbc cannot take 12-byte requests"},
      {"aes-128-xts --sizes 8", 1, "aes-128-xts cannot take 8-byte requests (at least 16"},
      {"aes-128-cbc --format xml", 1, "unknown format 'xml'"},
      {"aes-128-cbc --plot x.gif", 1, "'x.gif'"},
      {"aes-128-cbc --plot svg", 1, "'svg'"},
      {"aes-128-cbc -elapsed -cputime", 1, "-cputime"},
      {"aes-128-cbc -multi 0", 2, "--multi: Value 0 not in range"},
      {"aes-128-cbc -multi x", 2, "--multi"},
      {"aes-128-cbc -seconds 0", 2, "--seconds: Value 0 not in range"},
      {"aes-128-cbc -seconds abc", 2, "--seconds"},
      {"aes-128-cbc --frobnicate", 2, "--frobnicate"},
      // More than this machine's memory, refused before it starts (issue 15):
      // 1024 workers with 256 requests of 64 KiB (36 GB) here, where the
      // kernel killed the run; 4 MiB requests (2.2 TB) anywhere.
      {"aes-128-cbc -multi 1024 --in-flight 256 --bytes 4194304", 1,
       "--multi 1024 with --in-flight 256 at 4194304 bytes needs about"},
  };
  for (const Case& c : cases) {
    // Tiny runs in case a value were wrongly accepted (but never a second -seconds).
    const std::string args = c.args;
    const SpeedRun r =
        speed(args.find("-seconds") == std::string::npos ? args + " -seconds 0.01" : args);
    EXPECT_EQ(r.status, c.status) << c.args << "\nstderr: " << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos)
        << c.args << ": expected '" << c.needle << "' in stderr: " << r.err;
    if (c.status == 1) {
      EXPECT_EQ(r.err.rfind("cryptoaccel: ", 0), 0u) << c.args << ": " << r.err;
    }
    // Validation comes first: nothing is measured and nothing printed on stdout.
    EXPECT_EQ(r.out, "") << c.args;
    EXPECT_EQ(r.err.find("Doing "), std::string::npos) << c.args << ": " << r.err;
  }
}

TEST(SpeedCli, HelpListsEveryOption) {
  const SpeedRun r = speed("--help");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* option :
       {"--evp", "--hmac", "--seconds", "--bytes", "--sizes", "--multi", "--elapsed", "--cputime",
        "--mr", "--decrypt", "--driver", "--format", "--plot", "--no-verify"})
    EXPECT_NE(r.out.find(option), std::string::npos) << option << " missing from:\n" << r.out;
}

// A size given twice is either refused or shown: never measured and dropped.
TEST(SpeedCli, RepeatedSizeIsNotMeasuredAndDropped) {
  const SpeedRun r = speed("aes-128-cbc -seconds 0.01 --sizes 16,16,64");
  if (r.status == 1) {
    EXPECT_NE(r.err.find("16"), std::string::npos) << r.err;
    return;
  }
  ASSERT_EQ(r.status, 0) << r.err;
  const OpensslTables t = parse_openssl(r.out);
  ASSERT_EQ(t.rates.size(), 1u) << r.out;
  EXPECT_EQ(t.rates[0].cells.size(), t.sizes.size());
  for (const auto& cell : t.rates[0].cells) EXPECT_TRUE(cell.has_value()) << r.out;
  EXPECT_EQ(parse_doing(r.err).size(), t.sizes.size()) << r.err;
}

// -bytes 0 (or any other value that is not a size) is refused, as --sizes 0
// is; it must never silently run the default list of six sizes instead.
TEST(SpeedCli, BytesOutOfRangeIsRefusedLikeSizes) {
  for (const char* bytes : {"0", "-1", "-5"}) {
    const SpeedRun r = speed(std::string("aes-128-cbc -seconds 0.001 -bytes ") + bytes);
    EXPECT_NE(r.status, 0) << "-bytes " << bytes << ": " << r.err;
    EXPECT_NE(r.err.find(bytes), std::string::npos) << "-bytes " << bytes << ": " << r.err;
    EXPECT_EQ(r.err.find("Doing "), std::string::npos) << "-bytes " << bytes << ": " << r.err;
  }
}

}  // namespace
