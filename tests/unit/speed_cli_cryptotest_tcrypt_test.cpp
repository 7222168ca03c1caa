// `cryptoaccel speed` as a user runs it: the cryptotest and tcrypt formats.
// Runs are kept tiny (-seconds 0.01 to 0.5, two or three sizes).
#include <gtest/gtest.h>
#include <regex>

#include "speed_cli_support.hpp"

namespace {

using namespace speed_cli;

TEST(SpeedCli, CryptotestLinesAreConsistent) {
  const SpeedRun r =
      speed("aes-128-cbc sha256 aes-128-gcm -seconds 0.05 --sizes 16,64 --format cryptotest");
  ASSERT_EQ(r.status, 0) << r.err;
  // 0.067 sec, 2048 aes-128-cbc crypts, 16 bytes, 425757 byte/sec, 3.2 Mb/sec, 0.066 cpu sec, 99%
  // cpu
  const std::regex line_format(
      R"(^(\d+\.\d{3}) sec, (\d+) (\S+) crypts, (\d+) bytes, (\d+) byte/sec, (\d+\.\d) Mb/sec, (\d+\.\d{3}) cpu sec, (\d+)% cpu$)");
  const std::vector<std::pair<std::string, std::size_t>> expected{
      {"aes-128-cbc", 16}, {"aes-128-cbc", 64}, {"sha256", 16},
      {"sha256", 64},      {"aes-128-gcm", 16}, {"aes-128-gcm", 64}};
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), expected.size()) << r.out;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(lines[k], m, line_format)) << lines[k];
    const double seconds = std::stod(m[1]);
    const double operations = std::stod(m[2]);
    const std::size_t size = std::stoul(m[4]);
    const double byte_per_sec = std::stod(m[5]);
    const double mb_per_sec = std::stod(m[6]);
    EXPECT_EQ(m[3], expected[k].first) << lines[k];
    EXPECT_EQ(size, expected[k].second) << lines[k];
    EXPECT_GE(seconds, 0.05) << lines[k];
    EXPECT_GT(operations, 0) << lines[k];
    // Seconds are printed to 0.001: allow that rounding plus 0.1%.
    EXPECT_TRUE(near(byte_per_sec, operations * size / seconds, 0.0005 / seconds + 1e-3))
        << lines[k];
    // cryptotest's Mb is 2^20 bits, rounded to 0.1.
    EXPECT_NEAR(mb_per_sec, byte_per_sec * 8 / (1024.0 * 1024.0), 0.05 + 1e-6) << lines[k];
    // The CPU time may print as 0.000 where a loaded machine gave the
    // worker under half a millisecond (seen under qemu-user beside other
    // builds): what always holds is that the percentage is that time over
    // the seconds, within the rounding of the three numbers.
    const double cpu = std::stod(m[7]);
    const int percent = std::stoi(m[8]);
    EXPECT_GE(cpu, 0.0) << lines[k];
    EXPECT_NEAR(percent, cpu / seconds * 100, 2 + 0.1 / seconds) << lines[k];
    EXPECT_LE(percent, 110) << lines[k];
  }
}

TEST(SpeedCli, TcryptLinesAreConsistent) {
  const SpeedRun r = speed(
      "--driver soft aes-128-cbc aes-256-xts aes-128-gcm sha256 hmac-sha256 -seconds 0.03 "
      "--sizes 16,64 --format tcrypt");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::regex heading(R"(^testing speed of (\S+) \((\S+)\)( encryption)?$)");
  // test 0 (128 bit key, 16 byte blocks): 87335 operations in 1 seconds (1397360 bytes), ...
  const std::regex cipher_line(
      R"(^test (\d+) \((\d+) bit key, (\d+) byte blocks\): (\d+) operations in ([0-9.e+-]+) seconds \((\d+) bytes\), (\d+\.\d{3}) cpu sec, (\d+)% cpu$)");
  // test   0 (   16 byte blocks,   16 bytes per update,   1 updates):  123 opers/sec, ...
  const std::regex hash_line(
      R"(^test +(\d+) \( *(\d+) byte blocks, *(\d+) bytes per update, *(\d+) updates\): +(\d+) opers/sec, +(\d+) bytes/sec, (\d+\.\d{3}) cpu sec, (\d+)% cpu$)");
  const std::map<std::string, unsigned> key_bits{
      {"aes-128-cbc", 128}, {"aes-256-xts", 512}, {"aes-128-gcm", 128}};
  const std::vector<std::size_t> sizes{16, 64};

  std::vector<std::string> seen;
  std::string current;
  bool current_is_hash = false;
  std::size_t test_index = 0, figures = 0;
  for (const std::string& line : lines_of(r.out)) {
    if (line.empty()) continue;
    std::smatch m;
    if (std::regex_match(line, m, heading)) {
      current = m[1];
      seen.push_back(current);
      EXPECT_EQ(m[2], "soft") << line;  // the driver that served it
      current_is_hash = !m[3].matched;
      EXPECT_EQ(current_is_hash, current == "sha256" || current == "hmac-sha256") << line;
      test_index = 0;
    } else if (std::regex_match(line, m, cipher_line)) {
      ASSERT_FALSE(current_is_hash) << line;
      EXPECT_EQ(std::stoul(m[1]), test_index) << line;
      EXPECT_EQ(std::stoul(m[2]), key_bits.at(current)) << line;
      const std::size_t size = std::stoul(m[3]);
      EXPECT_EQ(size, sizes[test_index]) << line;
      const std::uint64_t operations = std::stoull(m[4]);
      EXPECT_GT(operations, 0u) << line;
      EXPECT_GE(std::stod(m[5]), 0.03) << line;
      EXPECT_EQ(std::stoull(m[6]), operations * size) << line;  // bytes = operations x size
      EXPECT_LE(std::stoi(m[8]), 110) << line;
      ++test_index, ++figures;
    } else if (std::regex_match(line, m, hash_line)) {
      ASSERT_TRUE(current_is_hash) << line;
      EXPECT_EQ(std::stoul(m[1]), test_index) << line;
      const std::size_t size = std::stoul(m[2]);
      EXPECT_EQ(size, sizes[test_index]) << line;
      EXPECT_EQ(std::stoul(m[3]), size) << line;  // one update per block
      EXPECT_EQ(std::stoul(m[4]), 1u) << line;
      const double per_second = std::stod(m[5]), bytes_per_second = std::stod(m[6]);
      EXPECT_GT(per_second, 0) << line;
      // opers/sec is rounded to a whole number: allow half an operation.
      EXPECT_NEAR(bytes_per_second, per_second * size, 0.5 * size + 1) << line;
      EXPECT_LE(std::stoi(m[8]), 110) << line;
      ++test_index, ++figures;
    } else {
      ADD_FAILURE() << "unexpected tcrypt line: '" << line << "'";
    }
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"aes-128-cbc", "aes-256-xts", "aes-128-gcm", "sha256",
                                            "hmac-sha256"}));
  EXPECT_EQ(figures, 5 * sizes.size());
}

// tcrypt says which direction it measured.
TEST(SpeedCli, TcryptHeadingSaysDecryptionWithDecrypt) {
  const SpeedRun r = speed("-decrypt aes-128-cbc -seconds 0.01 --sizes 16 --format tcrypt");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("testing speed of aes-128-cbc (soft) decryption"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("encryption"), std::string::npos) << r.out;
}

}  // namespace
