// `cryptoaccel speed` as a user runs it: the openssl format: its table against its progress lines,
// its options, -cputime and the header. Runs are kept tiny (-seconds 0.01 to 0.5, two or three
// sizes).
#include <gtest/gtest.h>
#include <regex>

#include "speed_cli_support.hpp"

namespace {

using namespace speed_cli;

TEST(SpeedCli, OpensslTableAgreesWithTheProgressLines) {
  // Long enough for the two-decimal seconds of the progress lines to pin the
  // rate down to 1.2% (0.005 s of rounding in 0.5 s): a table in 1024s of
  // bytes (2.4% off) would not pass.
  const std::vector<std::string> algorithms{"aes-128-cbc", "sha256"};
  const std::vector<std::size_t> sizes{16, 256};
  const SpeedRun r = speed("-evp aes-128-cbc sha256 -seconds 0.5 --sizes 16,256");
  ASSERT_EQ(r.status, 0) << r.err;
  const OpensslTables t = parse_openssl(r.out);
  EXPECT_NE(t.heading.find("per second of elapsed time"), std::string::npos) << t.heading;
  EXPECT_EQ(t.sizes, sizes);
  ASSERT_EQ(t.rates.size(), algorithms.size()) << r.out;
  for (std::size_t a = 0; a < algorithms.size(); ++a) {
    EXPECT_EQ(t.rates[a].label, algorithms[a]);  // no "(driver)" when the dispatcher chooses
    ASSERT_EQ(t.rates[a].cells.size(), sizes.size());
    for (const auto& cell : t.rates[a].cells) {
      ASSERT_TRUE(cell.has_value()) << r.out;
      EXPECT_GT(*cell, 0.0) << r.out;
    }
  }
  ASSERT_EQ(t.cpu_seconds.size(), algorithms.size()) << r.out;
  for (std::size_t a = 0; a < algorithms.size(); ++a) {
    EXPECT_EQ(t.cpu_seconds[a].label, algorithms[a]);
    for (std::size_t s = 0; s < sizes.size(); ++s) {
      ASSERT_TRUE(t.cpu_seconds[a].cells[s] && t.cpu_percent[a].cells[s]) << r.out;
      EXPECT_GT(*t.cpu_seconds[a].cells[s], 0.0) << r.out;
      EXPECT_GT(*t.cpu_percent[a].cells[s], 0.0) << r.out;
      EXPECT_LE(*t.cpu_percent[a].cells[s], 110.0) << r.out;
    }
  }
  EXPECT_FALSE(t.has_ratio_table) << r.out;

  const auto doing = parse_doing(r.err);
  ASSERT_EQ(doing.size(), algorithms.size() * sizes.size()) << r.err;
  for (std::size_t k = 0; k < doing.size(); ++k) {
    const DoingLine& d = doing[k];
    // In the order they ran: algorithm by algorithm, size by size.
    EXPECT_EQ(d.name, algorithms[k / sizes.size()]);
    EXPECT_EQ(d.size, sizes[k % sizes.size()]);
    EXPECT_DOUBLE_EQ(d.seconds_asked, 0.5);
    EXPECT_FALSE(d.interrupted);
    EXPECT_GT(d.operations, 0u);
    EXPECT_GE(d.seconds, 0.5);  // a measurement lasts at least what was asked
    const TableRow* row = row_named(t.rates, d.name);
    ASSERT_NE(row, nullptr) << d.name;
    const double table_k = *row->cells[k % sizes.size()];
    const double from_doing_k = static_cast<double>(d.operations) * d.size / d.seconds / 1e3;
    // The printed seconds are rounded to 0.01, which alone moves the rate by
    // up to 0.005 / seconds; allow that plus 0.2%.
    const double tolerance = 0.005 / d.seconds + 0.002;
    EXPECT_TRUE(near(from_doing_k, table_k, tolerance))
        << d.name << " at " << d.size << ": progress line gives " << from_doing_k
        << "k, table says " << table_k << "k";
    // One worker: no more CPU time than elapsed time (both rounded to 0.01 s).
    const TableRow* cpu = row_named(t.cpu_seconds, d.name);
    ASSERT_NE(cpu, nullptr) << d.name;
    EXPECT_LE(*cpu->cells[k % sizes.size()], 1.1 * d.seconds + 0.01) << r.out;
  }
}

TEST(SpeedCli, OpensslStyleOptionsHmacAndBytes) {
  // openssl speed's one-dash spelling: -evp, -hmac, -bytes, -seconds, -elapsed.
  const SpeedRun r = speed("-evp aes-128-cbc -hmac sha256 -bytes 64 -seconds 0.02 -elapsed");
  ASSERT_EQ(r.status, 0) << r.err;
  const OpensslTables t = parse_openssl(r.out);
  EXPECT_EQ(t.sizes, std::vector<std::size_t>{64});
  ASSERT_EQ(t.rates.size(), 2u) << r.out;
  EXPECT_EQ(t.rates[0].label, "aes-128-cbc");
  EXPECT_EQ(t.rates[1].label, "hmac-sha256");
  EXPECT_EQ(parse_doing(r.err).size(), 2u) << r.err;
}

TEST(SpeedCli, CputimeDividesByCpuSecondsAndSaysSo) {
  const SpeedRun table = speed("aes-128-cbc -cputime -seconds 0.02 --sizes 16");
  ASSERT_EQ(table.status, 0) << table.err;
  const OpensslTables t = parse_openssl(table.out);
  EXPECT_NE(t.heading.find("per CPU second"), std::string::npos) << t.heading;

  const SpeedRun json = speed("aes-128-cbc -cputime -seconds 0.02 --sizes 16,64 --format json");
  ASSERT_EQ(json.status, 0) << json.err;
  const Json j = Json::parse(json.out);
  EXPECT_EQ(j.at("rate_basis"), "cpu");
  ASSERT_EQ(j.at("results").size(), 2u);
  for (const Json& m : j.at("results")) {
    const double cpu = m.at("cpu_user_s").get<double>() + m.at("cpu_system_s").get<double>();
    ASSERT_GT(cpu, 0.0) << m;
    EXPECT_TRUE(near(m.at("bytes_per_second").get<double>(),
                     m.at("operations").get<double>() * m.at("size").get<double>() / cpu, 1e-9))
        << m;
  }
}

// The openssl table: each "N bytes" of the header ends where the figures of
// its column end (openssl speed: 13 characters per column in both).
TEST(SpeedCli, OpensslHeaderLinesUpWithTheColumns) {
  const SpeedRun r = speed("aes-128-cbc -seconds 0.01 --sizes 16,64,256,1024");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 7u) << r.out;
  const auto ends = [](const std::string& line, const std::regex& cell) {
    std::vector<std::size_t> out;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), cell);
         it != std::sregex_iterator(); ++it)
      out.push_back(static_cast<std::size_t>(it->position() + it->length()));
    return out;
  };
  const std::regex header_cell(R"(\d+ bytes)"), rate_cell(R"(\d+\.\d\dk)"), cpu_cell(R"(\d+%)");
  EXPECT_EQ(ends(lines[1], header_cell), ends(lines[2], rate_cell)) << lines[1] << "\n" << lines[2];
  EXPECT_EQ(ends(lines[5], header_cell), ends(lines[6], cpu_cell)) << lines[5] << "\n" << lines[6];
}

}  // namespace
