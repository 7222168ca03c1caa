// SP 800-90B continuous health tests: the cutoffs derived from the claimed
// entropy, each test on both sides of its cutoff, and a source that fails
// taken out of service.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <deque>
#include <random>

#include "cryptoaccel/random.hpp"
#include "rng/health_tested_source.hpp"
#include "rng/health_tests.hpp"

namespace {

using cryptoaccel::HealthTestFailure;
using cryptoaccel::rng::AdaptiveProportionTest;
using cryptoaccel::rng::RepetitionCountTest;
using Bytes = std::vector<std::uint8_t>;

// Distinct values, none equal to its neighbour or to `avoid`.
Bytes distinct(std::size_t n, std::uint8_t avoid) {
  Bytes out;
  std::uint8_t v = 0;
  while (out.size() < n) {
    ++v;
    if (v != avoid) out.push_back(v);
  }
  return out;
}

TEST(HealthParameters, CutoffsFromTheClaimedEntropy) {
  // SP 800-90B §4.4 with alpha = 2^-20 (the table in docs/rng.md).
  EXPECT_EQ(cryptoaccel::health_parameters(1, 1).rct_cutoff, 21u);
  EXPECT_EQ(cryptoaccel::health_parameters(1, 1).apt_window, 1024u);
  EXPECT_EQ(cryptoaccel::health_parameters(1, 1).apt_cutoff, 589u);
  const std::pair<double, unsigned> apt[] = {{1, 311}, {2, 177}, {4, 62}, {8, 13}};
  for (const auto& [h, cutoff] : apt) {
    const auto p = cryptoaccel::health_parameters(h);
    EXPECT_EQ(p.apt_window, 512u);
    EXPECT_EQ(p.apt_cutoff, cutoff) << "H = " << h;
  }
  EXPECT_EQ(cryptoaccel::health_parameters(2).rct_cutoff, 11u);
  EXPECT_EQ(cryptoaccel::health_parameters(8).rct_cutoff, 4u);
  EXPECT_EQ(cryptoaccel::health_parameters(0.5).rct_cutoff, 41u);
}

TEST(HealthParameters, RejectsImpossibleClaims) {
  EXPECT_THROW(cryptoaccel::health_parameters(0), cryptoaccel::InvalidArgument);
  EXPECT_THROW(cryptoaccel::health_parameters(8.5), cryptoaccel::InvalidArgument);
  EXPECT_THROW(cryptoaccel::health_parameters(2, 1), cryptoaccel::InvalidArgument);
  EXPECT_THROW(cryptoaccel::health_parameters(1, 4), cryptoaccel::InvalidArgument);
}

TEST(RepetitionCountTest, CutoffMinusOnePassesCutoffFails) {
  for (unsigned cutoff : {2u, 4u, 11u, 21u}) {
    Bytes data = distinct(5, 0x42);
    data.insert(data.end(), cutoff - 1, 0x42);
    data.push_back(0x43);
    RepetitionCountTest pass(cutoff);
    EXPECT_EQ(pass.feed(data), data.size()) << "cutoff " << cutoff;

    Bytes failing = distinct(5, 0x42);
    failing.insert(failing.end(), cutoff, 0x42);
    RepetitionCountTest fail(cutoff);
    EXPECT_EQ(fail.feed(failing), failing.size() - 1) << "cutoff " << cutoff;
    EXPECT_EQ(fail.value(), 0x42);
  }
}

TEST(RepetitionCountTest, RunsCarryAcrossCalls) {
  RepetitionCountTest t(11);
  const Bytes five(5, 7), six(6, 7);
  EXPECT_EQ(t.feed(five), 5u);
  EXPECT_EQ(t.feed(five), 5u);  // 10 in a row: still passing
  EXPECT_EQ(t.feed(six), 0u);   // the 11th fails
  RepetitionCountTest u(11);
  EXPECT_EQ(u.feed(five), 5u);
  EXPECT_EQ(u.feed(Bytes{8}), 1u);  // broken run
  EXPECT_EQ(u.feed(five), 5u);
  EXPECT_EQ(u.feed(five), 5u);
}

// A window of `window` samples whose first value (0xaa) occurs `count`
// times, none of them adjacent to another (so the RCT stays quiet).
Bytes window_with(unsigned window, unsigned count) {
  Bytes w;
  std::mt19937 rng(count);
  for (unsigned i = 0; i < window; ++i) {
    const bool first = i % 2 == 0 && i / 2 < count;
    std::uint8_t other;
    do other = static_cast<std::uint8_t>(rng());
    while (other == 0xaa);
    w.push_back(first ? 0xaa : other);
  }
  return w;
}

TEST(AdaptiveProportionTest, CutoffMinusOnePassesCutoffFails) {
  for (const auto& [window, cutoff] : {std::pair{512u, 177u}, std::pair{512u, 13u}}) {
    const Bytes pass = window_with(window, cutoff - 1);
    AdaptiveProportionTest a(window, cutoff);
    EXPECT_EQ(a.feed(pass), pass.size()) << "cutoff " << cutoff;

    const Bytes fail = window_with(window, cutoff);
    AdaptiveProportionTest b(window, cutoff);
    EXPECT_EQ(b.feed(fail), 2 * (cutoff - 1)) << "cutoff " << cutoff;  // the cutoff-th 0xaa
  }
}

TEST(AdaptiveProportionTest, WindowsDoNotOverlap) {
  const unsigned window = 512, cutoff = 13;
  // cutoff-1 in one window and one more as the next window's second sample:
  // each window passes.
  Bytes data = window_with(window, cutoff - 1);
  data.push_back(0xaa);
  data.push_back(0xaa ^ 1);
  AdaptiveProportionTest a(window, cutoff);
  EXPECT_EQ(a.feed(data), data.size());
  // The last sample of a window counts; the one after it does not.
  Bytes last = window_with(window, cutoff - 2);
  last.back() = 0xaa;  // cutoff - 1 in the window
  last.push_back(0xaa);
  AdaptiveProportionTest b(window, cutoff);
  EXPECT_EQ(b.feed(last), last.size());
  // Split across calls, the count carries.
  const Bytes fail = window_with(window, cutoff);
  AdaptiveProportionTest c(window, cutoff);
  EXPECT_EQ(c.feed(std::span(fail).first(10)), 10u);
  EXPECT_EQ(c.feed(std::span(fail).subspan(10)), 2 * (cutoff - 1) - 10);
}

// Serves queued chunks; then more of the last byte, or the end.
class ScriptedSource final : public cryptoaccel::rng::RawSource {
 public:
  explicit ScriptedSource(std::deque<Bytes> chunks) : chunks_(std::move(chunks)) {}
  std::size_t read(std::span<std::uint8_t> out) override {
    if (chunks_.empty()) return 0;
    Bytes& c = chunks_.front();
    const std::size_t n = std::min(out.size(), c.size());
    std::copy(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(n), out.begin());
    c.erase(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(n));
    if (c.empty()) chunks_.pop_front();
    return n;
  }

 private:
  std::deque<Bytes> chunks_;
};

cryptoaccel::RandomSourceInfo info(cryptoaccel::RandomSourceKind kind) {
  return {.name = "scripted", .kind = kind, .available = true, .entropy_per_sample = 2};
}

Bytes random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  Bytes b(n);
  for (auto& x : b) x = static_cast<std::uint8_t>(rng());
  return b;
}

TEST(HealthTestedSource, StuckSourceIsTakenOutOfService) {
  Bytes stuck = random_bytes(100, 1);
  stuck.insert(stuck.end(), 20, 0x00);
  cryptoaccel::rng::HealthTestedSource source(
      info(cryptoaccel::RandomSourceKind::input),
      std::make_unique<ScriptedSource>(std::deque<Bytes>{stuck, random_bytes(100, 2)}));
  Bytes out(120, 0x55);
  try {
    source.read(out);
    FAIL() << "a stuck source passed";
  } catch (const HealthTestFailure& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("scripted: SP 800-90B repetition count test failed"), std::string::npos)
        << message;
    EXPECT_NE(message.find("cutoff 11"), std::string::npos) << message;
    EXPECT_NE(message.find("out of service"), std::string::npos) << message;
  }
  EXPECT_EQ(out, Bytes(120, 0)) << "the failing data was handed out";
  EXPECT_TRUE(source.stats().failed);
  Bytes more(10);
  EXPECT_THROW(source.read(more), HealthTestFailure);  // even though the data is good now
}

TEST(HealthTestedSource, BiasedSourceFailsTheAdaptiveProportionTest) {
  // 0x01 in every other byte: no repetition, but 256 of 512 > cutoff 177.
  Bytes biased;
  for (int i = 0; i < 1024; ++i) biased.push_back(i % 2 ? static_cast<std::uint8_t>(i / 2) : 1);
  cryptoaccel::rng::HealthTestedSource source(
      info(cryptoaccel::RandomSourceKind::input),
      std::make_unique<ScriptedSource>(std::deque<Bytes>{biased}));
  Bytes out(1024);
  try {
    source.read(out);
    FAIL() << "a biased source passed";
  } catch (const HealthTestFailure& e) {
    EXPECT_NE(std::string(e.what()).find("adaptive proportion test failed: 0x01 occurred 177"),
              std::string::npos)
        << e.what();
  }
}

TEST(HealthTestedSource, DeviceSourcesDiscardTheirStartupSamples) {
  const Bytes startup = random_bytes(1024, 3), data = random_bytes(64, 4);
  cryptoaccel::rng::HealthTestedSource source(
      info(cryptoaccel::RandomSourceKind::hardware),
      std::make_unique<ScriptedSource>(std::deque<Bytes>{startup, data}));
  Bytes out(64);
  EXPECT_EQ(source.read(out), 64u);
  EXPECT_EQ(out, data);
  EXPECT_EQ(source.stats().tested_bytes, 1024u + 64u);
  EXPECT_EQ(source.stats().bytes, 64u);

  // A device stuck from the start never delivers a byte.
  cryptoaccel::rng::HealthTestedSource stuck(
      info(cryptoaccel::RandomSourceKind::hardware),
      std::make_unique<ScriptedSource>(std::deque<Bytes>{Bytes(1024, 0xff)}));
  EXPECT_THROW(stuck.start(), HealthTestFailure);
}

TEST(RandomSources, FileOfZerosFailsAndGoodFileReadsToTheEnd) {
  char zeros[] = "/tmp/cryptoaccel-zeros-XXXXXX";
  const int fd = mkstemp(zeros);
  ASSERT_GE(fd, 0);
  const Bytes z(4096, 0);
  ASSERT_EQ(write(fd, z.data(), z.size()), 4096);
  close(fd);
  auto source = cryptoaccel::open_random_source(std::string("file:") + zeros);
  Bytes out(4096);
  EXPECT_THROW(source->read(out), HealthTestFailure);
  unlink(zeros);

  char good[] = "/tmp/cryptoaccel-good-XXXXXX";
  const int fd2 = mkstemp(good);
  const Bytes g = random_bytes(3000, 5);
  ASSERT_EQ(write(fd2, g.data(), g.size()), 3000);
  close(fd2);
  auto file = cryptoaccel::open_random_source(std::string("file:") + good);
  EXPECT_EQ(file->read(out), 3000u);
  EXPECT_TRUE(std::equal(g.begin(), g.end(), out.begin()));
  EXPECT_EQ(file->read(out), 0u);
  unlink(good);
}

TEST(RandomSources, NamesAndAbsence) {
  EXPECT_THROW(cryptoaccel::open_random_source("nonsense"), cryptoaccel::NotFound);
  EXPECT_THROW(cryptoaccel::open_random_source("file:/nonexistent/x"), cryptoaccel::DriverFailure);
  auto g = cryptoaccel::open_random_source("getrandom");
  Bytes out(1000);
  EXPECT_EQ(g->read(out), 1000u);
  EXPECT_EQ(g->info().kind, cryptoaccel::RandomSourceKind::software);
  EXPECT_EQ(g->health().rct_cutoff, 11u);
  bool listed = false;
  for (const auto& s : cryptoaccel::random_sources()) {
    listed |= s.name == "getrandom" && s.available;
    if (!s.available) {
      EXPECT_FALSE(s.detail.empty()) << s.name;
    }
  }
  EXPECT_TRUE(listed);
}

// x86-64's RDRAND/RDSEED after CPUID, AArch64's RNDR/RNDRRS after HWCAP2
// (qemu-user's default CPU has FEAT_RNG); elsewhere absent, saying where
// each exists.
TEST(RandomSources, CpuSourcesFollowWhatTheCpuSays) {
  for (const char* name : {"rdrand", "rdseed", "rndr", "rndrrs"}) {
    bool here = false;
    for (const auto& s : cryptoaccel::random_sources())
      if (s.name == name) here = s.available;
    if (!here) {
      EXPECT_THROW(cryptoaccel::open_random_source(name), cryptoaccel::Unsupported);
      continue;
    }
    auto source = cryptoaccel::open_random_source(name);
    Bytes out(4099);  // not a multiple of 8
    EXPECT_EQ(source->read(out), out.size());
  }
}

}  // namespace
