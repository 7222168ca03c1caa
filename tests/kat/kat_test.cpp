// The known-answer suite: every algorithm of the table, through every driver
// that claims it, against the published vectors. A driver claims an algorithm
// when its self-test for it was really run and passed; the null driver does
// no cryptography (tested == false) and so is never part of this suite.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "cryptoaccel/framework.hpp"
#include "kat_runner.hpp"
#include "vector_loader.hpp"

namespace cryptoaccel::kat {
namespace {

constexpr std::size_t kMaxFailuresShown = 10;
constexpr std::size_t kMinSoftVectors = 10000;
constexpr const char* kSoft = "soft";

struct KatParam {
  AlgorithmId algorithm{};
  std::string driver;  // empty: no driver claims the algorithm
  std::string unclaimed_reason;
};

// GoogleTest names a failing parameter with this instead of a byte dump.
void PrintTo(const KatParam& p, std::ostream* os) {
  *os << algorithm(p.algorithm).name << " on " << (p.driver.empty() ? "no driver" : p.driver);
}

bool claims(const DriverInfo& driver, AlgorithmId id) {
  for (std::size_t i = 0; i < driver.capabilities.size() && i < driver.self_tests.size(); ++i)
    if (driver.capabilities[i].algorithm == id && driver.self_tests[i].passed &&
        driver.self_tests[i].tested)
      return true;
  return false;
}

bool mentions(std::string_view text, std::string_view word) {
  return std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) ==
                  std::tolower(static_cast<unsigned char>(b));
         }) != text.end();
}

// Why nobody claims `id`: each driver's self-test verdict, and the framework's
// notes about it (such as a missing OpenSSL legacy provider for des-cbc).
std::string unclaimed_reason(AlgorithmId id, const std::vector<DriverInfo>& drivers) {
  const Algorithm& a = algorithm(id);
  std::string why = "no driver claims " + std::string(a.name) + " with a passed, real self-test";
  for (const DriverInfo& d : drivers)
    for (std::size_t i = 0; i < d.capabilities.size() && i < d.self_tests.size(); ++i)
      if (d.capabilities[i].algorithm == id) {
        const SelfTestResult& t = d.self_tests[i];
        why += "; " + d.name + ": " +
               (t.tested           ? "self-test failed: " + t.detail
                : t.detail.empty() ? std::string("not tested")
                                   : t.detail);
      }
  for (const std::string& note : Framework::global().notes())
    if (mentions(note, a.name) || mentions(note, a.openssl_name)) why += "; " + note;
  return why;
}

// Each (algorithm, driver) pair that claims it; an algorithm nobody claims
// still gets one parameter, so that its skip and the reason are visible.
std::vector<KatParam> kat_params() {
  const std::vector<DriverInfo> drivers = Framework::global().drivers();
  std::vector<KatParam> params;
  for (const Algorithm& a : algorithms()) {
    if (a.kind == AlgorithmKind::public_key) continue;  // rsa_kat_test.cpp
    bool claimed = false;
    for (const DriverInfo& d : drivers)
      if (claims(d, a.id)) {
        params.push_back({a.id, d.name, {}});
        claimed = true;
      }
    if (!claimed) params.push_back({a.id, {}, unclaimed_reason(a.id, drivers)});
  }
  return params;
}

std::string identifier(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return out;
}

std::string param_name(const testing::TestParamInfo<KatParam>& info) {
  return identifier(algorithm(info.param.algorithm).name) + "_" +
         (info.param.driver.empty() ? std::string("unclaimed") : identifier(info.param.driver));
}

// ---- one run per (algorithm, driver) and process -------------------------

struct AlgorithmRun {
  const LoadedVectors* loaded = nullptr;
  RunResult result;
};

const LoadedVectors& loaded_vectors(AlgorithmId id) {
  static std::map<AlgorithmId, LoadedVectors> cache;
  auto it = cache.find(id);
  if (it == cache.end()) it = cache.emplace(id, load_vectors(id, vectors_root())).first;
  return it->second;
}

// What this process ran, in order, for the closing table.
struct TallyLine {
  std::string driver;
  AlgorithmId algorithm;
  std::size_t vectors, streamed, rejected, skipped, failed, outside;
};
TallyLine tally_of(const std::string& driver, AlgorithmId id, const AlgorithmRun& run) {
  return {driver,
          id,
          run.result.vectors,
          run.result.streamed,
          run.result.rejected,
          run.loaded->skipped_count(),
          run.result.failures.size(),
          run.result.outside};
}

std::vector<TallyLine>& tally() {
  static std::vector<TallyLine> lines;
  return lines;
}

// CRYPTOACCEL_KAT_SAMPLE=N: at most about N vectors per algorithm on a
// driver other than soft, every k-th of the files in order (so forgeries and
// every file keep their share), for transports too slow to run them all in a
// test's time (a CUSE /dev/crypto in an emulated guest does ~40 a second).
// Empty when every vector runs.
std::vector<KatVector> sample(const std::vector<KatVector>& vectors, const std::string& driver) {
  const char* text = std::getenv("CRYPTOACCEL_KAT_SAMPLE");
  const std::size_t limit = text != nullptr ? std::strtoul(text, nullptr, 10) : 0;
  if (limit == 0 || driver == kSoft || vectors.size() <= limit) return {};
  const std::size_t stride = (vectors.size() + limit - 1) / limit;
  // One Monte Carlo vector at most: each is 1000 chained digests.
  std::vector<KatVector> out;
  bool monte = false;
  for (std::size_t i = 0; i < vectors.size(); i += stride) {
    if (vectors[i].kind == VectorKind::monte && std::exchange(monte, true)) continue;
    out.push_back(vectors[i]);
  }
  return out;
}

// The parameterised tests and the facts below share runs: when the whole
// binary runs in one process nothing runs twice, and when ctest runs one test
// per process each test still has what it needs.
const AlgorithmRun& run_once(AlgorithmId id, const std::string& driver) {
  static std::map<std::pair<AlgorithmId, std::string>, AlgorithmRun> runs;
  const auto key = std::make_pair(id, driver);
  if (auto it = runs.find(key); it != runs.end()) return it->second;
  AlgorithmRun run{.loaded = &loaded_vectors(id), .result = {}};
  // Only the lengths the driver claims are run through it.
  static const std::vector<DriverInfo> drivers = Framework::global().drivers();
  const Capability* capability = nullptr;
  for (const DriverInfo& d : drivers)
    if (d.name == driver)
      for (const Capability& c : d.capabilities)
        if (c.algorithm == id) capability = &c;
  const std::vector<KatVector> sampled = sample(run.loaded->vectors, driver);
  run.result = run_vectors(sampled.empty() ? std::span<const KatVector>(run.loaded->vectors)
                                           : std::span<const KatVector>(sampled),
                           driver, capability);
  if (!sampled.empty())
    std::cout << "kat: " << driver << " " << algorithm(id).name << " sampled " << sampled.size()
              << " of " << run.loaded->vectors.size() << " vectors (CRYPTOACCEL_KAT_SAMPLE)"
              << std::endl;
  tally().push_back(tally_of(driver, id, run));
  return runs.emplace(key, std::move(run)).first->second;
}

std::string tally_line(const TallyLine& t) {
  char text[160];
  std::snprintf(text, sizeof text, "kat: %-8s %-18s %6zu vectors", t.driver.c_str(),
                std::string(algorithm(t.algorithm).name).c_str(), t.vectors);
  std::string line = text;
  if (t.streamed != 0) line += ", " + std::to_string(t.streamed) + " also streamed";
  if (t.rejected != 0) line += ", " + std::to_string(t.rejected) + " forgeries rejected";
  if (t.skipped != 0) line += ", " + std::to_string(t.skipped) + " skipped";
  if (t.outside != 0)
    line += ", " + std::to_string(t.outside) + " outside the driver's claimed lengths";
  if (t.failed != 0) line += ", " + std::to_string(t.failed) + " FAILED";
  return line;
}

// Prints the table of everything this process ran once all tests are done.
class Summary : public testing::Environment {
 public:
  void TearDown() override {
    if (tally().empty()) return;
    std::map<std::string, std::size_t> per_driver;
    std::size_t total = 0;
    std::cout << "\nkat: vectors run, per driver and algorithm\n";
    for (const TallyLine& t : tally()) {
      std::cout << tally_line(t) << "\n";
      per_driver[t.driver] += t.vectors;
      total += t.vectors;
    }
    for (const auto& [driver, n] : per_driver)
      std::cout << "kat: " << driver << " total " << n << " vectors\n";
    std::cout << "kat: grand total " << total << " vectors\n" << std::flush;
  }
};

// GoogleTest owns registered environments; release() hands it ours.
[[maybe_unused]] testing::Environment* const kSummary =
    testing::AddGlobalTestEnvironment(std::make_unique<Summary>().release());

// ---- the suite -----------------------------------------------------------

class Kat : public testing::TestWithParam<KatParam> {};

TEST_P(Kat, Vectors) {
  const KatParam& p = GetParam();
  const Algorithm& a = algorithm(p.algorithm);
  if (p.driver.empty()) GTEST_SKIP() << p.unclaimed_reason;

  const AlgorithmRun& run = run_once(p.algorithm, p.driver);
  for (const std::string& error : run.loaded->errors) ADD_FAILURE() << "vector file: " << error;
  ASSERT_FALSE(run.loaded->vectors.empty())
      << "no known-answer vectors for " << a.name << " (see vector_loader.cpp)";

  const RunResult& r = run.result;
  std::cout << tally_line(tally_of(p.driver, p.algorithm, run)) << std::endl;
  for (const SkippedVectors& s : run.loaded->skipped)
    std::cout << "kat: " << p.driver << " " << a.name << " skipped " << s.count << " of " << s.file
              << ": " << s.reason << std::endl;
  RecordProperty("vectors", std::to_string(r.vectors));
  RecordProperty("skipped", std::to_string(run.loaded->skipped_count()));

  const std::size_t shown = std::min(r.failures.size(), kMaxFailuresShown);
  for (std::size_t i = 0; i < shown; ++i) ADD_FAILURE() << r.failures[i];
  EXPECT_EQ(r.failures.size(), 0u)
      << r.failures.size() << " of " << r.vectors << " vectors failed on driver '" << p.driver
      << "'"
      << (shown < r.failures.size() ? " (the first " + std::to_string(shown) + " are shown)"
                                    : std::string());
  EXPECT_EQ(r.rejected, r.must_reject) << "forgeries that open() accepted";
}

INSTANTIATE_TEST_SUITE_P(Drivers, Kat, testing::ValuesIn(kat_params()), param_name);

// ---- facts that must hold whatever the drivers -----------------------------

TEST(KatFacts, SoftRunsAtLeastTenThousandVectors) {
  const std::vector<DriverInfo> drivers = Framework::global().drivers();
  const auto soft = std::find_if(drivers.begin(), drivers.end(),
                                 [](const DriverInfo& d) { return d.name == kSoft; });
  ASSERT_NE(soft, drivers.end()) << "the soft driver is not registered";
  std::size_t total = 0;
  for (const Algorithm& a : algorithms())
    if (claims(*soft, a.id)) total += run_once(a.id, kSoft).result.vectors;
  std::cout << "kat: soft ran " << total << " vectors in all" << std::endl;
  EXPECT_GE(total, kMinSoftVectors) << "vectors are read from " << vectors_root().string();
}

// A driver that does no cryptography would "fail" every vector: it must be
// filtered out by its untested self-tests, not by its name.
TEST(KatFacts, UntestedDriversAreNotInTheSuite) {
  const std::vector<DriverInfo> drivers = Framework::global().drivers();
  for (const KatParam& p : kat_params()) {
    if (p.driver.empty()) continue;
    const auto d = std::find_if(drivers.begin(), drivers.end(),
                                [&](const DriverInfo& x) { return x.name == p.driver; });
    ASSERT_NE(d, drivers.end()) << p.driver;
    for (std::size_t i = 0; i < d->capabilities.size() && i < d->self_tests.size(); ++i) {
      if (d->capabilities[i].algorithm != p.algorithm) continue;
      EXPECT_TRUE(d->self_tests[i].tested && d->self_tests[i].passed)
          << p.driver << " " << algorithm(p.algorithm).name;
    }
  }
}

TEST(KatFacts, EveryGcmFailVectorIsRejected) {
  const std::vector<DriverInfo> drivers = Framework::global().drivers();
  for (const AlgorithmId id :
       {AlgorithmId::aes_128_gcm, AlgorithmId::aes_192_gcm, AlgorithmId::aes_256_gcm}) {
    const std::string_view name = algorithm(id).name;
    const std::vector<KatVector>& vectors = loaded_vectors(id).vectors;
    const auto forgeries = static_cast<std::size_t>(std::count_if(
        vectors.begin(), vectors.end(), [](const KatVector& v) { return v.expect_auth_failure; }));
    EXPECT_GT(forgeries, 0u) << name << ": gcmDecrypt has FAIL vectors; none were loaded";
    bool claimed = false;
    for (const DriverInfo& d : drivers) {
      if (!claims(d, id)) continue;
      claimed = true;
      const RunResult& r = run_once(id, d.name).result;
      // Under CRYPTOACCEL_KAT_SAMPLE, the forgeries of the driver's sample.
      const std::vector<KatVector> sampled = sample(vectors, d.name);
      const auto ran = sampled.empty()
                           ? forgeries
                           : static_cast<std::size_t>(std::count_if(
                                 sampled.begin(), sampled.end(),
                                 [](const KatVector& v) { return v.expect_auth_failure; }));
      std::cout << "kat: " << d.name << " " << name << " rejected " << r.rejected << " of "
                << r.must_reject << " FAIL vectors it claims (" << ran << " run, " << forgeries
                << " in all)" << std::endl;
      EXPECT_EQ(r.must_reject + r.outside_forgeries, ran) << d.name << " " << name;
      EXPECT_EQ(r.rejected, r.must_reject) << d.name << " " << name;
      if (d.name == "soft") {
        EXPECT_EQ(r.rejected, forgeries) << "soft claims every GCM length";
      }
    }
    EXPECT_TRUE(claimed) << "no driver claims " << name << ": its FAIL vectors were not run";
  }
}

// The authors' nine messages (eight from the package, the million 'a' from
// tests/data) and RFC 2286's seven HMAC cases: the runner must load them all.
TEST(KatFacts, Ripemd160HasItsPublishedSets) {
  const LoadedVectors& digest = loaded_vectors(AlgorithmId::ripemd160);
  EXPECT_TRUE(digest.errors.empty()) << testing::PrintToString(digest.errors);
  EXPECT_EQ(digest.vectors.size(), 9u);
  const auto million = std::find_if(digest.vectors.begin(), digest.vectors.end(),
                                    [](const KatVector& v) { return v.in.size() == 1000000; });
  ASSERT_NE(million, digest.vectors.end()) << "no one-million-'a' vector";
  EXPECT_TRUE(
      std::all_of(million->in.begin(), million->in.end(), [](std::uint8_t b) { return b == 'a'; }));
  const LoadedVectors& hmac = loaded_vectors(AlgorithmId::hmac_ripemd160);
  EXPECT_TRUE(hmac.errors.empty()) << testing::PrintToString(hmac.errors);
  EXPECT_EQ(hmac.vectors.size(), 7u);
}

}  // namespace
}  // namespace cryptoaccel::kat
