// `cryptoaccel speed` as a user runs it: -mr: the machine-readable lines of openssl speed, parsed
// back. Runs are kept tiny (-seconds 0.01 to 0.5, two or three sizes).
#include <gtest/gtest.h>
#include <regex>

#include "speed_cli_support.hpp"

namespace {

using namespace speed_cli;

TEST(SpeedCli, MachineReadableLinesParseBack) {
  const std::vector<std::string> algorithms{"aes-128-cbc", "sha256"};
  const std::vector<std::size_t> sizes{16, 64};
  const SpeedRun r = speed("-mr -evp aes-128-cbc -evp sha256 -seconds 0.03 --sizes 16,64");
  ASSERT_EQ(r.status, 0) << r.err;

  // stderr: +DT:name:seconds:size then +R:operations:name:elapsed, per measurement.
  const std::regex dt(R"(^\+DT:([^:]+):([0-9.]+):(\d+)$)"), res(R"(^\+R:(\d+):([^:]+):([0-9.]+)$)");
  std::map<std::pair<std::string, std::size_t>, double> measured_rate;
  std::optional<std::pair<std::string, std::size_t>> pending;
  for (const std::string& line : lines_of(r.err)) {
    EXPECT_EQ(line.rfind("Doing ", 0), std::string::npos) << "-mr prints no Doing lines";
    std::smatch m;
    if (std::regex_match(line, m, dt)) {
      EXPECT_FALSE(pending) << line;
      EXPECT_DOUBLE_EQ(std::stod(m[2]), 0.03);
      pending = std::make_pair(m[1].str(), std::stoul(m[3]));
    } else if (std::regex_match(line, m, res)) {
      ASSERT_TRUE(pending) << line;
      EXPECT_EQ(m[2], pending->first);
      const double elapsed = std::stod(m[3]);
      EXPECT_GE(elapsed, 0.03);
      measured_rate[*pending] = std::stod(m[1]) * static_cast<double>(pending->second) / elapsed;
      pending.reset();
    }
  }
  EXPECT_EQ(measured_rate.size(), algorithms.size() * sizes.size()) << r.err;

  // stdout: +H:16:64, then per algorithm +F:index:name:rate... (bytes per
  // second) and +C:index:name:cpu_seconds:cpu_percent...
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 1 + 2 * algorithms.size()) << r.out;
  EXPECT_EQ(lines[0], "+H:16:64");
  for (std::size_t a = 0; a < algorithms.size(); ++a) {
    const std::string& f = lines[1 + 2 * a];
    const std::string& c = lines[2 + 2 * a];
    std::smatch m;
    ASSERT_TRUE(
        std::regex_match(f, m, std::regex(R"(^\+F:(\d+):([^:]+):(\d+\.\d\d):(\d+\.\d\d)$)")))
        << f;
    EXPECT_EQ(std::stoul(m[1]), a);
    EXPECT_EQ(m[2], algorithms[a]);
    for (std::size_t s = 0; s < sizes.size(); ++s) {
      const double rate = std::stod(m[3 + s]);
      EXPECT_GT(rate, 0.0) << f;
      const auto it = measured_rate.find({algorithms[a], sizes[s]});
      ASSERT_NE(it, measured_rate.end()) << algorithms[a] << " " << sizes[s];
      EXPECT_TRUE(near(rate, it->second, 1e-3))
          << f << ": +R gives " << it->second << " bytes/s at " << sizes[s];
    }
    ASSERT_TRUE(std::regex_match(
        c, m, std::regex(R"(^\+C:(\d+):([^:]+):(\d+\.\d{3}):(\d+\.\d):(\d+\.\d{3}):(\d+\.\d)$)")))
        << c;
    EXPECT_EQ(std::stoul(m[1]), a);
    EXPECT_EQ(m[2], algorithms[a]);
    // A size's CPU time may print as 0.000 where a loaded machine ran its
    // worker for under half a millisecond of the measurement (seen under
    // qemu-user, for every size of an algorithm once, beside other builds).
    double cpu_seconds = 0;
    for (std::size_t s = 0; s < sizes.size(); ++s) {
      cpu_seconds += std::stod(m[3 + 2 * s]);
      const double percent = std::stod(m[4 + 2 * s]);
      EXPECT_GE(percent, 0.0) << c;
      EXPECT_LE(percent, 200.0) << c;  // one worker, plus the measuring thread or an emulator's
    }
    EXPECT_GE(cpu_seconds, 0.0) << c;
  }
}

}  // namespace
