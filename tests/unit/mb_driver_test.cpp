// The mb driver against soft, request by request: batches that mix IVs,
// lengths, tag lengths, forged tags and directions, partial bursts and
// bursts longer than the library takes at once; sessions with different
// keys whose requests meet in one burst from many threads; and the CTR
// counter where libipsec-mb's 32-bit count would wrap. Known answers over
// mb are the KAT suite's (tests/kat); this checks what vectors cannot: how
// requests are combined.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "cryptoaccel/cryptoaccel.hpp"
#include "batch_cases.hpp"
#include "test_util.hpp"

namespace cryptoaccel {
namespace {

using test::AnySession;
using test::ByteVector;
using test::Case;
using test::pick;
using test::random_case;
using test::random_key;
using test::expect_same;
using test::make_opens;
using test::run;

bool mb_present() {
  for (const DriverInfo& d : Framework::global().drivers())
    if (d.name == "mb") return true;
  return false;
}

std::vector<const Algorithm*> mb_algorithms() {
  std::vector<const Algorithm*> out;
  for (const DriverInfo& d : Framework::global().drivers())
    if (d.name == "mb")
      for (const Capability& c : d.capabilities) out.push_back(&algorithm(c.algorithm));
  return out;
}

class MbBatches : public testing::TestWithParam<const Algorithm*> {};

TEST_P(MbBatches, MatchSoftRequestByRequest) {
  if (!mb_present()) GTEST_SKIP() << "no mb driver in this build or on this CPU";
  const Algorithm& a = *GetParam();
  std::mt19937 rng(static_cast<unsigned>(a.id) * 7919 + 1);
  // Batch lengths: one, partial bursts, a full one, and more than one
  // library burst (128 jobs) at once.
  for (const std::size_t n : {1, 3, 15, 16, 17, 40, 130}) {
    const ByteVector key = random_key(a, rng);
    std::vector<Case> cases;
    const bool digest = a.kind == AlgorithmKind::digest || a.kind == AlgorithmKind::mac;
    for (std::size_t i = 0; i < n; ++i)
      cases.push_back(
          random_case(a, rng,
                      digest ? Operation::digest
                             : (pick(rng, 0, 1) != 0 ? Operation::decrypt : Operation::encrypt)));
    if (a.kind == AlgorithmKind::aead) make_opens(a, key, cases, rng);
    std::vector<Case> soft_cases = cases;
    AnySession mb(a, key, "mb"), soft(a, key, "soft");
    const auto by_mb = run(mb.get(), cases);
    const auto by_soft = run(soft.get(), soft_cases);
    expect_same(by_mb, by_soft, cases, soft_cases,
                std::string(a.name) + " batch of " + std::to_string(n));
    EXPECT_EQ(mb.get().last_driver(), "mb");
  }
}

std::string algorithm_name(const testing::TestParamInfo<const Algorithm*>& info) {
  std::string name(info.param->name);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Algorithms, MbBatches, testing::ValuesIn(mb_algorithms()), algorithm_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(MbBatches);

// OpenSSL carries the CTR counter through all 128 bits; libipsec-mb counts
// in the low 32, so the driver splits a request where they would wrap.
TEST(MbCounter, CtrCarriesPastTheLow32Bits) {
  if (!mb_present()) GTEST_SKIP() << "no mb driver in this build or on this CPU";
  const ByteVector key = test::random_bytes(16);
  for (const char* start :
       {"0102030405060708090a0b0cfffffffe", "01020304050607ffffffffffffffffff",
        "ffffffffffffffffffffffffffffffff", "0102030405060708090a0b0c00000000"}) {
    SCOPED_TRACE(start);
    const ByteVector iv = test::hex(start), in = test::random_bytes(16 * 5 + 7);
    CipherSession mb("aes-128-ctr", key, {.driver = "mb"}),
        soft("aes-128-ctr", key, {.driver = "soft"});
    EXPECT_EQ(mb.encrypt(iv, in), soft.encrypt(iv, in));
  }
}

// The lanes of CBC encryption and of the hashes count bytes in 16 bits:
// mb claims up to 65520 bytes there, and serves that size right; a larger
// request goes to soft, or fails when pinned to mb. CTR and GCM take more.
TEST(MbLimits, LaneLengthsAreClaimedOnlyAsFarAsTheyAreRight) {
  if (!mb_present()) GTEST_SKIP() << "no mb driver in this build or on this CPU";
  const ByteVector key = test::random_bytes(16), iv = test::random_bytes(16);
  for (const std::size_t n : {std::size_t{65520}, std::size_t{65536}, std::size_t{1} << 20}) {
    SCOPED_TRACE(n);
    const ByteVector in = test::random_bytes(n);
    const bool lanes_take_it = n <= 65520;
    CipherSession cbc("aes-128-cbc", key, {.driver = "mb"}),
        cbc_soft("aes-128-cbc", key, {.driver = "soft"});
    MacSession hmac("hmac-sha256", key, {.driver = "mb"}),
        hmac_soft("hmac-sha256", key, {.driver = "soft"});
    if (lanes_take_it) {
      EXPECT_EQ(cbc.encrypt(iv, in), cbc_soft.encrypt(iv, in));
      EXPECT_EQ(hmac.digest(in), hmac_soft.digest(in));
    } else {
      EXPECT_THROW(cbc.encrypt(iv, in), Unsupported);
      EXPECT_THROW(hmac.digest(in), Unsupported);
      CipherSession automatic("aes-128-cbc", key);
      EXPECT_EQ(automatic.encrypt(iv, in), cbc_soft.encrypt(iv, in));
    }
    CipherSession ctr("aes-128-ctr", key, {.driver = "mb"}),
        ctr_soft("aes-128-ctr", key, {.driver = "soft"});
    EXPECT_EQ(ctr.encrypt(iv, in), ctr_soft.encrypt(iv, in));
  }
}

// Sessions with their own keys, on many threads at once, each a few
// requests a call: their requests meet in shared bursts (the gatherer's
// queue), and every one must come back exactly once with its own answer.
TEST(MbGather, ManySessionsManyThreadsEveryRequestOnceAndRight) {
  if (!mb_present()) GTEST_SKIP() << "no mb driver in this build or on this CPU";
  for (const char* name : {"aes-128-cbc", "hmac-sha256", "aes-128-gcm", "sha256"}) {
    SCOPED_TRACE(name);
    const Algorithm& a = algorithm_or_throw(name);
    constexpr int kThreads = 6, kRounds = 150;
    std::atomic<int> wrong{0}, completed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        std::mt19937 rng(static_cast<unsigned>(t) + 100);
        const ByteVector key = random_key(a, rng);
        AnySession mb(a, key, "mb"), soft(a, key, "soft");
        for (int round = 0; round < kRounds; ++round) {
          std::vector<Case> cases;
          const std::size_t n = pick(rng, 1, 3);
          for (std::size_t i = 0; i < n; ++i)
            cases.push_back(
                random_case(a, rng,
                            a.kind == AlgorithmKind::digest || a.kind == AlgorithmKind::mac
                                ? Operation::digest
                                : Operation::encrypt));
          wrong += static_cast<int>(test::count_differences(mb.get(), soft.get(), cases));
          completed += static_cast<int>(n);
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_GT(completed.load(), kThreads * kRounds);
  }
}

// A request alone is never held back for company. With a flush deadline of
// 100 ms, a single wait would take longer than a thousand requests alone
// take even under a sanitizer.
TEST(MbGather, LoneRequestsDoNotWaitForTheDeadline) {
  if (!mb_present()) GTEST_SKIP() << "no mb driver in this build or on this CPU";
  ASSERT_EQ(setenv("CRYPTOACCEL_MB_DEADLINE_US", "100000", 1), 0);
  Framework framework;  // its mb driver reads the deadline when probed
  unsetenv("CRYPTOACCEL_MB_DEADLINE_US");
  CipherSession mb("aes-128-cbc", test::random_bytes(16),
                   {.framework = &framework, .driver = "mb"});
  const ByteVector iv(16, 1);
  ByteVector data(64, 2);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i) mb.encrypt(iv, data, data);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(100));
}

// Two threads on one gatherer, each a request at a time: a caller that finds
// the other running a burst waits for it, never longer than the deadline
// (here 100 ms), and most calls find company or run alone at once.
TEST(MbGather, AWaitingCallerIsNeverHeldPastTheDeadline) {
  if (!mb_present()) GTEST_SKIP() << "no mb driver in this build or on this CPU";
  ASSERT_EQ(setenv("CRYPTOACCEL_MB_DEADLINE_US", "100000", 1), 0);
  Framework framework;
  unsetenv("CRYPTOACCEL_MB_DEADLINE_US");
  const ByteVector key = test::random_bytes(16);
  std::atomic<long> slowest_us{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&] {
      CipherSession mb("aes-128-cbc", key, {.framework = &framework, .driver = "mb"});
      const ByteVector iv(16, 3);
      ByteVector data(1024, 4);
      for (int i = 0; i < 2000; ++i) {
        const auto start = std::chrono::steady_clock::now();
        mb.encrypt(iv, data, data);
        const long us = static_cast<long>(std::chrono::duration_cast<std::chrono::microseconds>(
                                              std::chrono::steady_clock::now() - start)
                                              .count());
        long seen = slowest_us.load();
        while (us > seen && !slowest_us.compare_exchange_weak(seen, us)) {
        }
      }
    });
  for (auto& th : threads) th.join();
  // The deadline plus a scheduling quantum or two of a loaded machine.
  EXPECT_LT(slowest_us.load(), 100000 + 50000);
}

// Session::start, for callers that must not block: requests queue at mb
// and run when a burst fills, when the starter flushes, or in another
// caller's burst; on_done runs once, after the last.
struct StartedBatch {
  std::vector<Case> cases, expected;
  std::vector<Request> requests;
  AsyncTicket ticket;
  std::atomic<int> done_calls{0};
  StartedBatch(const Algorithm& a, Bytes key, std::size_t n, std::mt19937& rng) {
    for (std::size_t i = 0; i < n; ++i) cases.push_back(random_case(a, rng, Operation::encrypt));
    expected = cases;
    AnySession soft(a, key, "soft");
    run(soft.get(), expected);
    for (Case& c : cases) requests.push_back(c.request());
    ticket.user = this;
    ticket.on_done = [](AsyncTicket& t) { ++static_cast<StartedBatch*>(t.user)->done_calls; };
  }
  bool right() const {
    for (std::size_t i = 0; i < cases.size(); ++i)
      if (requests[i].status != ErrorCode::ok || cases[i].out != expected[i].out) return false;
    return true;
  }
};

TEST(MbStart, QueuedUntilFlushedOrAFullBurstThenDoneOnce) {
  if (!mb_present()) GTEST_SKIP() << "no mb driver in this build or on this CPU";
  const Algorithm& a = algorithm_or_throw("aes-128-cbc");
  std::mt19937 rng(5);
  const ByteVector key = test::random_bytes(16);
  CipherSession mb("aes-128-cbc", key, {.driver = "mb"});
  StartedBatch few(a, key, 3, rng);  // below every lane width (4 at least)
  ASSERT_TRUE(mb.start(few.requests, few.ticket));
  EXPECT_EQ(few.done_calls.load(), 0) << "three requests do not fill a burst";
  EXPECT_EQ(few.ticket.unfinished.load(), 3u);
  mb.flush();
  EXPECT_EQ(few.done_calls.load(), 1);
  EXPECT_EQ(few.ticket.unfinished.load(), 0u);
  EXPECT_TRUE(few.right());

  StartedBatch full(a, key, 16, rng);  // at least a lane width: runs inside start()
  ASSERT_TRUE(mb.start(full.requests, full.ticket));
  EXPECT_EQ(full.done_calls.load(), 1);
  EXPECT_TRUE(full.right());
  mb.flush();  // nothing queued: nothing happens
  EXPECT_EQ(full.done_calls.load(), 1);
}

TEST(MbStart, AnotherCallersBurstRunsStartedRequests) {
  if (!mb_present()) GTEST_SKIP() << "no mb driver in this build or on this CPU";
  const Algorithm& a = algorithm_or_throw("aes-128-cbc");
  std::mt19937 rng(6);
  const ByteVector key = test::random_bytes(16), other_key = test::random_bytes(16);
  CipherSession starter("aes-128-cbc", key, {.driver = "mb"});
  StartedBatch started(a, key, 3, rng);
  ASSERT_TRUE(starter.start(started.requests, started.ticket));
  // Another session (another key) on another thread, synchronously: it finds
  // the started requests queued and no one to wait for, and runs them too.
  std::thread([&] {
    CipherSession other("aes-128-cbc", other_key, {.driver = "mb"});
    CipherSession soft("aes-128-cbc", other_key, {.driver = "soft"});
    const ByteVector iv = test::random_bytes(16), in = test::random_bytes(64);
    EXPECT_EQ(other.encrypt(iv, in), soft.encrypt(iv, in));
  }).join();
  EXPECT_EQ(started.done_calls.load(), 1);
  EXPECT_TRUE(started.right());
}

// Starters and waiting callers on several threads at once, each with its
// own key: every started request is run once, right, and its ticket's
// on_done called once; the starters flush what is left.
TEST(MbStart, StartersAndWaitersOnManyThreadsLoseNothing) {
  if (!mb_present()) GTEST_SKIP() << "no mb driver in this build or on this CPU";
  const Algorithm& a = algorithm_or_throw("aes-128-cbc");
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(t) + 40);
      const ByteVector key = test::random_bytes(16);
      CipherSession mb("aes-128-cbc", key, {.driver = "mb"});
      for (int round = 0; round < 60; ++round) {
        if (t % 2 == 0) {
          StartedBatch b(a, key, pick(rng, 1, 20), rng);
          if (!mb.start(b.requests, b.ticket)) {
            ++wrong;
            continue;
          }
          // Until on_done has run, not until the count is 0: the batch is
          // the runner's until then (request.hpp).
          while (b.done_calls.load() == 0) mb.flush();
          if (b.done_calls.load() != 1 || !b.right()) ++wrong;
        } else {
          std::vector<Case> cases;
          for (std::size_t i = 0; i < pick(rng, 1, 3); ++i)
            cases.push_back(random_case(a, rng, Operation::encrypt));
          std::vector<Case> expected = cases;
          AnySession soft(a, key, "soft");
          run(soft.get(), expected);
          const auto done = run(mb, cases);
          for (std::size_t i = 0; i < cases.size(); ++i)
            if (done[i].status != ErrorCode::ok || cases[i].out != expected[i].out) ++wrong;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(MbStart, NotQueuedWhereNoDriverGathers) {
  const ByteVector key = test::random_bytes(16), iv = test::random_bytes(16);
  ByteVector data = test::random_bytes(64);
  CipherSession soft("aes-128-cbc", key, {.driver = "soft"});
  Request r{.op = Operation::encrypt, .iv = iv, .in = data, .out = data};
  AsyncTicket ticket;
  EXPECT_FALSE(soft.start({&r, 1}, ticket));
  // A request that fails its checks is not queued either.
  if (!mb_present()) return;
  CipherSession mb("aes-128-cbc", key, {.driver = "mb"});
  Request bad{.op = Operation::encrypt, .iv = iv, .in = Bytes(data).first(10), .out = data};
  EXPECT_FALSE(mb.start({&bad, 1}, ticket));
  EXPECT_EQ(bad.status, ErrorCode::invalid_length);
}

}  // namespace
}  // namespace cryptoaccel
