// `cryptoaccel speed` as a user runs it: the JSON document and the CSV lines, against each other.
// Runs are kept tiny (-seconds 0.01 to 0.5, two or three sizes).
#include <gtest/gtest.h>
#include <regex>

#include "speed_cli_support.hpp"

namespace {

using namespace speed_cli;

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',')
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

TEST(SpeedCli, JsonDocumentAndCsvAgree) {
  const std::string options =
      "aes-128-cbc aes-128-gcm sha256 hmac-sha256 -seconds 0.02 --sizes 16,64";
  const std::vector<std::string> algorithms{"aes-128-cbc", "aes-128-gcm", "sha256", "hmac-sha256"};
  const std::vector<std::size_t> sizes{16, 64};

  const SpeedRun json = speed(options + " --format json");
  ASSERT_EQ(json.status, 0) << json.err;
  const Json j = Json::parse(json.out);
  const std::set<std::string> top{"tool",  "version",     "rate_basis", "seconds",
                                  "multi", "sizes",       "verified",   "verification_failures",
                                  "notes", "interrupted", "results"};
  for (const auto& [key, value] : j.items()) EXPECT_TRUE(top.count(key)) << "unknown " << key;
  for (const std::string& key : top) EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j.at("tool"), "cryptoaccel speed");
  EXPECT_TRUE(std::regex_match(j.at("version").get<std::string>(), std::regex(R"(\d+\.\d+\.\d+)")))
      << j.at("version");
  EXPECT_EQ(j.at("rate_basis"), "elapsed");
  EXPECT_DOUBLE_EQ(j.at("seconds").get<double>(), 0.02);
  EXPECT_EQ(j.at("multi"), 1);
  EXPECT_EQ(j.at("sizes").get<std::vector<std::size_t>>(), sizes);
  EXPECT_TRUE(j.at("verified").get<bool>());
  EXPECT_EQ(j.at("verification_failures"), Json::array());
  EXPECT_EQ(j.at("notes"), Json::array());
  EXPECT_FALSE(j.at("interrupted").get<bool>());
  const Json& results = j.at("results");
  ASSERT_EQ(results.size(), algorithms.size() * sizes.size()) << j.dump(2);
  std::vector<std::string> json_keys;
  for (std::size_t k = 0; k < results.size(); ++k) {
    const Json& m = results[k];
    json_keys.push_back(check_result(m, 0.02, 1));
    // In the order they ran, on the automatic choice, served by soft here.
    EXPECT_EQ(m.at("algorithm"), algorithms[k / sizes.size()]);
    EXPECT_EQ(m.at("size").get<std::size_t>(), sizes[k % sizes.size()]);
    EXPECT_EQ(m.at("driver"), "auto");
    EXPECT_FALSE(m.at("served_by").get<std::string>().empty()) << m;
    EXPECT_FALSE(m.contains("ratio_to_soft")) << "no driver was compared with soft: " << m;
  }

  const SpeedRun csv = speed(options + " --format csv");
  ASSERT_EQ(csv.status, 0) << csv.err;
  const auto lines = lines_of(csv.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0],
            "algorithm,driver,served_by,size,workers,operations,elapsed_s,cpu_user_s,cpu_system_s,"
            "cpu_percent,bytes_per_second,ratio_to_soft");
  std::vector<std::string> csv_keys;
  for (std::size_t k = 1; k < lines.size(); ++k) {
    const auto f = csv_fields(lines[k]);
    ASSERT_EQ(f.size(), 12u) << lines[k];
    const std::size_t size = std::stoul(f[3]);
    const double operations = std::stod(f[5]), elapsed = std::stod(f[6]), user = std::stod(f[7]),
                 system = std::stod(f[8]), percent = std::stod(f[9]), rate = std::stod(f[10]);
    csv_keys.push_back(f[0] + "/" + f[1] + "/" + f[2] + "/" + f[3] + "/" + f[4]);
    EXPECT_GT(operations, 0) << lines[k];
    EXPECT_GE(elapsed, 0.02 - 1e-6) << lines[k];
    EXPECT_GE(user, 0) << lines[k];
    EXPECT_GE(system, 0) << lines[k];
    EXPECT_NEAR(percent, 100 * (user + system) / elapsed, 0.1) << lines[k];
    // A unit slip would be off by 100 or more; the process's CPU time
    // beyond its workers' (the measuring thread, an emulator's own under
    // qemu-user: 110.6% for one worker was seen) is not one.
    EXPECT_LE(percent, 100.0 * (std::stod(f[4]) + 1)) << lines[k];
    // The rate is printed in whole bytes a second: on a loaded machine one
    // 16-byte operation in 50 ms is 320.06 B/s, printed 320.
    const double expected_rate = operations * size / elapsed;
    EXPECT_TRUE(near(rate, expected_rate, 1e-4) || std::abs(rate - expected_rate) <= 0.5)
        << lines[k];
    EXPECT_EQ(f[11], "") << "no ratio without a comparison: " << lines[k];
  }
  // The same measurements, in the same order, as the JSON run.
  EXPECT_EQ(csv_keys, json_keys);
}

}  // namespace
