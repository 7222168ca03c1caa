// `cryptoaccel speed` as a user runs it: what a run does: verification against soft on every driver
// and kind of algorithm, -multi workers, the null driver (measured, never verified, and said so),
// --in-flight batches. Runs are kept tiny (-seconds 0.01 to 0.5, two or three sizes).
#include <gtest/gtest.h>
#include <regex>

#include "speed_cli_support.hpp"

namespace {

using namespace speed_cli;

TEST(SpeedCli, DriverAllVerifiesOneAlgorithmOfEachKind) {
  const std::vector<std::string> algorithms{"aes-128-cbc",       "aes-128-xts",  "aes-128-gcm",
                                            "chacha20-poly1305", "des-ede3-cbc", "sha256",
                                            "hmac-sha256"};
  std::string names;
  for (const std::string& a : algorithms) names += a + " ";
  const SpeedRun r = speed("--driver all " + names + "-seconds 0.01 --sizes 16,64 --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("VERIFICATION FAILED"), std::string::npos) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_TRUE(j.at("verified").get<bool>());
  EXPECT_EQ(j.at("verification_failures"), Json::array());
  EXPECT_EQ(j.at("notes"), Json::array()) << "every driver of `all` passed its self-test";
  std::set<std::string> soft_figures;
  for (const Json& m : j.at("results")) {
    check_result(m, 0.01, 1);
    // `all` pins each driver in turn: the one asked is the one that served.
    EXPECT_EQ(m.at("served_by"), m.at("driver")) << m;
    if (m.at("driver") == "soft")
      soft_figures.insert(m.at("algorithm").get<std::string>() + "/" +
                          std::to_string(m.at("size").get<std::size_t>()));
    else
      EXPECT_TRUE(m.contains("ratio_to_soft")) << m;
  }
  for (const std::string& a : algorithms)
    for (const char* size : {"16", "64"})
      EXPECT_TRUE(soft_figures.count(a + "/" + size)) << a << " at " << size << " on soft";
}

TEST(SpeedCli, DriverAllLabelsRowsWithTheDriver) {
  const SpeedRun r = speed("--driver all aes-128-cbc sha256 -seconds 0.01 --sizes 16,64");
  ASSERT_EQ(r.status, 0) << r.err;
  const OpensslTables t = parse_openssl(r.out);
  ASSERT_NE(row_named(t.rates, "aes-128-cbc (soft)"), nullptr) << r.out;
  ASSERT_NE(row_named(t.rates, "sha256 (soft)"), nullptr) << r.out;
  bool other_driver = false;
  for (const TableRow& row : t.rates) {
    EXPECT_TRUE(std::regex_match(row.label, std::regex(R"(\S+ \(\S+\))"))) << row.label;
    other_driver |= row.label.find("(soft)") == std::string::npos;
  }
  // The ratio table appears exactly when another driver was compared with soft.
  EXPECT_EQ(t.has_ratio_table, other_driver) << r.out;
  for (const DoingLine& d : parse_doing(r.err))
    EXPECT_TRUE(std::regex_match(d.name, std::regex(R"(\S+ \(\S+\))"))) << d.name;
}

TEST(SpeedCli, DecryptIsVerifiedAndMeasuredForCiphersAndAeads) {
  const SpeedRun r = speed(
      "-decrypt --driver all aes-128-cbc aes-128-ctr aes-128-xts aes-128-gcm chacha20-poly1305 "
      "-seconds 0.01 --sizes 16,64 --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("VERIFICATION FAILED"), std::string::npos) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j.at("verification_failures"), Json::array());
  std::set<std::string> measured;
  for (const Json& m : j.at("results")) {
    check_result(m, 0.01, 1);
    measured.insert(m.at("algorithm").get<std::string>());
  }
  EXPECT_EQ(measured, (std::set<std::string>{"aes-128-cbc", "aes-128-ctr", "aes-128-xts",
                                             "aes-128-gcm", "chacha20-poly1305"}));
}

TEST(SpeedCli, MultiRunsWorkersInParallel) {
  const SpeedRun json =
      speed("-multi 2 aes-128-cbc sha256 -seconds 0.03 --sizes 16,64 --format json");
  ASSERT_EQ(json.status, 0) << json.err;
  const Json j = Json::parse(json.out);
  EXPECT_EQ(j.at("multi"), 2);
  ASSERT_EQ(j.at("results").size(), 4u);
  for (const Json& m : j.at("results")) check_result(m, 0.03, 2);

  const SpeedRun table = speed("-multi 2 aes-128-cbc -seconds 0.02 --sizes 16");
  ASSERT_EQ(table.status, 0) << table.err;
  const OpensslTables t = parse_openssl(table.out);
  EXPECT_NE(t.cpu_heading.find("(2 workers; 100% = one core)"), std::string::npos) << t.cpu_heading;
  ASSERT_EQ(t.cpu_percent.size(), 1u);
  EXPECT_LE(*t.cpu_percent[0].cells.at(0), 220.0) << table.out;
}

TEST(SpeedCli, NullDriverIsMeasuredWithANoteThatItWasNotVerified) {
  const SpeedRun r = speed("--driver null aes-128-cbc sha256 -seconds 0.02 --sizes 16,64");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* a : {"aes-128-cbc", "sha256"})
    EXPECT_NE(r.err.find(std::string("note: ") + a +
                         " on null: not verified (the driver does no cryptography)"),
              std::string::npos)
        << r.err;
  EXPECT_EQ(r.err.find("VERIFICATION FAILED"), std::string::npos) << r.err;
  const OpensslTables t = parse_openssl(r.out);
  ASSERT_EQ(t.rates.size(), 2u) << r.out;
  EXPECT_EQ(t.rates[0].label, "aes-128-cbc (null)");
  EXPECT_EQ(t.rates[1].label, "sha256 (null)");
  EXPECT_FALSE(t.has_ratio_table);

  const SpeedRun json = speed("--driver null aes-128-gcm -seconds 0.01 --sizes 16 --format json");
  ASSERT_EQ(json.status, 0) << json.err;
  const Json j = Json::parse(json.out);
  ASSERT_EQ(j.at("notes").size(), 1u) << j;
  EXPECT_NE(j.at("notes")[0].get<std::string>().find("not verified"), std::string::npos);
  ASSERT_EQ(j.at("results").size(), 1u);
  EXPECT_EQ(j.at("results")[0].at("driver"), "null");
  EXPECT_EQ(j.at("results")[0].at("served_by"), "null");

  // Without verification there is nothing to warn about.
  const SpeedRun quiet =
      speed("--driver null --no-verify aes-128-gcm -seconds 0.01 --sizes 16 --format json");
  ASSERT_EQ(quiet.status, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("not verified"), std::string::npos) << quiet.err;
  const Json q = Json::parse(quiet.out);
  EXPECT_FALSE(q.at("verified").get<bool>());
  EXPECT_EQ(q.at("notes"), Json::array());
}

// --in-flight N: batches of N one-shot requests through the asynchronous
// API, for every kind of algorithm; counted per request, still verified.
TEST(SpeedCli, InFlightBatchesCountEveryRequest) {
  const SpeedRun r = speed(
      "--driver soft --in-flight 4 aes-128-cbc aes-128-gcm sha256 hmac-sha256 -seconds 0.02 "
      "--sizes 64 --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_TRUE(j.at("verified").get<bool>());
  ASSERT_EQ(j.at("results").size(), 4u);
  for (const Json& m : j.at("results")) {
    EXPECT_EQ(m.at("in_flight").get<int>(), 4) << m;
    EXPECT_EQ(m.at("operations").get<std::uint64_t>() % 4, 0u) << m;
    EXPECT_GT(m.at("operations").get<std::uint64_t>(), 0u) << m;
    EXPECT_EQ(m.at("served_by"), "soft") << m;
  }
  const SpeedRun bad = speed("--in-flight 0 aes-128-cbc -seconds 0.01");
  EXPECT_EQ(bad.status, 2) << bad.err;
}

}  // namespace
