// The dpdk driver over DPDK's software devices (crypto_aesni_mb,
// crypto_openssl, and the scheduler over two aesni_mb workers), which need
// no hardware, no hugepages and no privilege: the instances and what they
// say about devices that gave none; every algorithm they claim against
// soft, batch by batch; many threads sharing keys and queue pairs; the
// limits of one operation; an empty message to hash; and a child after
// fork(). Known answers over these devices are the KAT suite's (ctest:
// kat.dpdk); how the driver is enabled, dpdk_config_test.cpp's.
//
// CRYPTOACCEL_DPDK gives Framework::global() its devices: the build's
// CRYPTOACCEL_TEST_DPDK_ARGUMENTS where the environment has none.
#include <gtest/gtest.h>

#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "batch_cases.hpp"
#include "cryptoaccel/cryptoaccel.hpp"
#include "test_util.hpp"

namespace cryptoaccel {
namespace {

using test::AnySession;
using test::ByteVector;
using test::Case;
using test::pick;

// Before main(): the parameterised suites list the devices' algorithms
// when gtest starts.
[[maybe_unused]] const int kDevicesGiven =
    setenv("CRYPTOACCEL_DPDK", CRYPTOACCEL_TEST_DPDK_ARGUMENTS, 0);

// Every algorithm every device claims, in batches of one, of a partial
// burst, of a whole one and of more than one, against soft.
struct DeviceAlgorithm {
  std::string driver;
  const Algorithm* algorithm;
  Capability claimed;
  friend void PrintTo(const DeviceAlgorithm& p, std::ostream* out) {
    *out << p.algorithm->name << " on " << p.driver;
  }
};

std::vector<DeviceAlgorithm> device_algorithms() {
  std::vector<DeviceAlgorithm> out;
  for (const DriverInfo& d : Framework::global().drivers())
    if (d.name.starts_with("dpdk:"))
      for (const Capability& c : d.capabilities)
        out.push_back({d.name, &algorithm(c.algorithm), c});
  return out;
}

class DpdkBatches : public testing::TestWithParam<DeviceAlgorithm> {};

// Runs `cases` through `session` as one batch with each output over its
// input (a copy of it); returns the requests.
std::vector<Request> run_in_place(Session& session, std::vector<Case>& cases) {
  std::vector<Request> batch;
  for (Case& c : cases) {
    c.out.assign(c.in.begin(), c.in.end());
    Request r = c.request();
    r.in = c.out;
    batch.push_back(r);
  }
  session.process(batch);
  return batch;
}

// test::count_differences with the device's requests in place.
std::size_t in_place_differences(Session& device, Session& soft, std::vector<Case>& cases) {
  std::vector<Case> soft_cases = cases;
  const auto by_device = run_in_place(device, cases);
  const auto by_soft = test::run(soft, soft_cases);
  std::size_t differences = 0;
  for (std::size_t i = 0; i < cases.size(); ++i)
    differences += by_device[i].status != by_soft[i].status || cases[i].out != soft_cases[i].out ||
                   cases[i].tag != soft_cases[i].tag;
  return differences;
}

TEST_P(DpdkBatches, MatchSoftRequestByRequest) {
  const DeviceAlgorithm& p = GetParam();
  const Algorithm& a = *p.algorithm;
  std::mt19937 rng(static_cast<unsigned>(a.id) * 7919 + 3);
  for (const std::size_t n : {1, 3, 32, 64, 65, 130}) {
    const ByteVector key = test::random_key(a, rng);
    if (!p.claimed.key_sizes.contains(key.size())) continue;
    std::vector<Case> cases;
    const bool digest = a.kind == AlgorithmKind::digest || a.kind == AlgorithmKind::mac;
    for (std::size_t i = 0; i < n; ++i)
      cases.push_back(test::random_case(
          a, rng,
          digest ? Operation::digest
                 : (pick(rng, 0, 1) != 0 ? Operation::decrypt : Operation::encrypt),
          &p.claimed));
    if (a.kind == AlgorithmKind::aead) test::make_opens(a, key, cases, rng);
    std::vector<Case> soft_cases = cases, in_place_cases = cases;
    AnySession device(a, key, p.driver), soft(a, key, "soft");
    const auto by_device = test::run(device.get(), cases);
    const auto by_soft = test::run(soft.get(), soft_cases);
    const std::string what =
        p.driver + " " + std::string(a.name) + " batch of " + std::to_string(n);
    test::expect_same(by_device, by_soft, cases, soft_cases, what);
    EXPECT_EQ(device.get().last_driver(), p.driver);
    // The same requests in place, which a device that computes in the
    // caller's thread (aesni_mb) runs through DPDK's CPU crypto API.
    if (!digest) {
      const auto in_place = run_in_place(device.get(), in_place_cases);
      test::expect_same(in_place, by_soft, in_place_cases, soft_cases, what + ", in place");
    }
  }
}

std::string device_algorithm_name(const testing::TestParamInfo<DeviceAlgorithm>& info) {
  std::string name = info.param.driver.substr(5) + "_" + std::string(info.param.algorithm->name);
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Devices, DpdkBatches, testing::ValuesIn(device_algorithms()),
                         device_algorithm_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DpdkBatches);

// More threads than a device has queue pairs (8), sharing keys: each batch
// waits for a free pair, and every byte still matches soft.
TEST(DpdkThreads, MoreThreadsThanQueuePairsSharingKeysEveryByteRight) {
  constexpr int kThreads = 12, kRounds = test::kUnderThreadSanitizer ? 20 : 120;
  for (const char* driver : {"dpdk:crypto_aesni_mb0", "dpdk:crypto_scheduler0"}) {
    for (const char* name : {"aes-128-gcm", "aes-256-cbc", "hmac-sha256"}) {
      SCOPED_TRACE(std::string(driver) + " " + name);
      const Algorithm& a = algorithm_or_throw(name);
      std::mt19937 key_rng(11);
      const ByteVector keys[] = {test::random_key(a, key_rng), test::random_key(a, key_rng),
                                 test::random_key(a, key_rng)};
      std::atomic<int> wrong{0}, completed{0};
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
          std::mt19937 rng(static_cast<unsigned>(t) + 200);
          const ByteVector& key = keys[t % 3];
          AnySession device(a, key, driver), soft(a, key, "soft");
          for (int round = 0; round < kRounds; ++round) {
            std::vector<Case> cases;
            const std::size_t n = pick(rng, 1, 40);
            for (std::size_t i = 0; i < n; ++i)
              cases.push_back(test::random_case(
                  a, rng, a.kind == AlgorithmKind::mac ? Operation::digest : Operation::encrypt,
                  nullptr));
            // One shape per thread, as a connection has (a new shape is a
            // new DPDK session, which takes crypto_aesni_mb most of a
            // millisecond to make): a 12-byte nonce, a whole tag, and no
            // AAD or TLS 1.2's 13 bytes.
            for (Case& c : cases)
              if (a.kind == AlgorithmKind::aead) {
                c.iv.resize(12);
                c.aad.resize(t % 2 != 0 ? 13 : 0);
                c.tag.resize(16);
              }
            // Every other round in place: through DPDK's CPU crypto API
            // on aesni_mb, beside other threads' queue pairs.
            const bool in_place = round % 2 != 0 && a.kind != AlgorithmKind::mac;
            wrong += static_cast<int>(
                in_place ? in_place_differences(device.get(), soft.get(), cases)
                         : test::count_differences(device.get(), soft.get(), cases));
            completed += static_cast<int>(n);
          }
        });
      for (auto& th : threads) th.join();
      EXPECT_EQ(wrong.load(), 0);
      EXPECT_GE(completed.load(), kThreads * kRounds);
    }
  }
}

// DPDK gives each thread that uses its CPU crypto API on aesni_mb a job
// manager of about 200 KB that it never frees. Threads that come and go
// (one per connection) are all served right, in place, and the memory
// they leave behind stays bounded: the backend lets a process's first 64
// threads use the API and sends the rest through queue pairs.
TEST(DpdkThreads, ShortLivedThreadsInPlaceAreServedAndLeaveBoundedMemory) {
  constexpr int kThreads = test::kUnderThreadSanitizer ? 80 : 300;
  const Algorithm& a = algorithm_or_throw("aes-128-cbc");
  std::mt19937 rng(23);
  const ByteVector key = test::random_key(a, rng);
  const auto in_use = [] {
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
  };
  const std::size_t before = in_use();
  int wrong = 0;
  for (int t = 0; t < kThreads; ++t) {
    std::vector<Case> cases;
    for (int i = 0; i < 8; ++i)
      cases.push_back(test::random_case(a, rng, Operation::encrypt, nullptr));
    std::thread([&] {
      AnySession device(a, key, "dpdk:crypto_aesni_mb0"), soft(a, key, "soft");
      wrong += static_cast<int>(in_place_differences(device.get(), soft.get(), cases));
    }).join();
  }
  EXPECT_EQ(wrong, 0);
  // Without the bound, 300 threads leave 60 MB; with it at most 64
  // managers (13 MB). (An ASan build's allocator is not glibc's, whose
  // numbers mallinfo2() gives.)
#if defined(__SANITIZE_ADDRESS__)
  constexpr bool kGlibcAllocates = false;
#else
  constexpr bool kGlibcAllocates = true;
#endif
  if (kGlibcAllocates) {
    EXPECT_LT(in_use() - before, std::size_t{20} << 20) << "bytes left behind by the threads";
  }
}

// A thread with the smallest stack POSIX allows (16 KiB): DPDK's CPU
// crypto API makes a thread's job manager on its first call with some
// 23 KB of stack, which such a thread lacks, so its in-place requests go
// through a queue pair, and are right. (A sanitizer's frames are larger:
// there the thread has three times that, still short of what the API is
// given.)
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr std::size_t kSmallStackMins = 3;
#else
constexpr std::size_t kSmallStackMins = 1;
#endif
TEST(DpdkThreads, AThreadWithASmallStackIsServedInPlace) {
  const Algorithm& a = algorithm_or_throw("aes-128-gcm");
  std::mt19937 rng(29);
  const ByteVector key = test::random_key(a, rng);
  std::vector<Case> cases;
  for (int i = 0; i < 8; ++i) {
    cases.push_back(test::random_case(a, rng, Operation::encrypt, nullptr));
    cases.back().iv.resize(12);  // one shape, as a connection has
    cases.back().aad.resize(13);
    cases.back().tag.resize(16);
  }
  std::vector<Case> soft_cases = cases;
  AnySession device(a, key, "dpdk:crypto_aesni_mb0"), soft(a, key, "soft");
  const auto by_soft = test::run(soft.get(), soft_cases);
  struct Job {
    Session* session;
    std::vector<Case>* cases;
    std::vector<Request> done;
  } job{&device.get(), &cases, {}};
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, kSmallStackMins * PTHREAD_STACK_MIN), 0);
  pthread_t thread;
  ASSERT_EQ(pthread_create(
                &thread, &attr,
                [](void* arg) -> void* {
                  auto* j = static_cast<Job*>(arg);
                  j->done = run_in_place(*j->session, *j->cases);
                  return nullptr;
                },
                &job),
            0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  test::expect_same(job.done, by_soft, cases, soft_cases, "in place on a 16 KiB stack");
}

// An operation's lengths are 16-bit in DPDK's mbufs: the driver claims up
// to 64 KiB less a block, serves that right, and leaves a larger request
// to another driver (or fails it where pinned).
TEST(DpdkLimits, RequestsLongerThanAnOperationTakesGoElsewhere) {
  const ByteVector key = test::random_bytes(16), iv = test::random_bytes(16);
  for (const std::size_t n : {std::size_t{65472}, std::size_t{65536}, std::size_t{1} << 20}) {
    SCOPED_TRACE(n);
    const ByteVector in = test::random_bytes(n);
    CipherSession device("aes-128-cbc", key, {.driver = "dpdk:crypto_aesni_mb0"}),
        soft("aes-128-cbc", key, {.driver = "soft"});
    if (n <= 65472) {
      EXPECT_EQ(device.encrypt(iv, in), soft.encrypt(iv, in));
    } else {
      EXPECT_THROW(device.encrypt(iv, in), Unsupported);
      CipherSession automatic("aes-128-cbc", key);
      EXPECT_EQ(automatic.encrypt(iv, in), soft.encrypt(iv, in));
    }
  }
}

// DPDK states an AAD's length in 16 bits. A longer AAD fails a session
// pinned to the device, and goes to another driver otherwise, also from
// the middle of a batch.
TEST(DpdkLimits, AnAadLongerThanTheDeviceTakesGoesElsewhere) {
  std::mt19937 rng(5);
  const ByteVector key = test::bytes_from(rng, 16), iv = test::bytes_from(rng, 12);
  const ByteVector in = test::bytes_from(rng, 300);
  AeadSession pinned("aes-128-gcm", key, {.driver = "dpdk:crypto_aesni_mb0"}),
      preferred("aes-128-gcm", key, {.driver = "dpdk:crypto_aesni_mb0", .fall_back = true}),
      soft("aes-128-gcm", key, {.driver = "soft"});
  const auto sealed_by = [&](AeadSession& s, const ByteVector& aad) {
    ByteVector out(in.size()), tag(16);
    s.seal(iv, aad, in, out, tag);
    out.insert(out.end(), tag.begin(), tag.end());
    return out;
  };
  const ByteVector longest = test::bytes_from(rng, 65535), longer = test::bytes_from(rng, 65536);
  EXPECT_EQ(sealed_by(pinned, longest), sealed_by(soft, longest));
  EXPECT_THROW(sealed_by(pinned, longer), Unsupported);
  EXPECT_EQ(sealed_by(preferred, longer), sealed_by(soft, longer));

  const std::vector<std::size_t> aad_lengths = {13, 65536, 20, 100000, 0, 65535, 13};
  std::vector<ByteVector> aads, outs, tags;
  for (std::size_t n : aad_lengths) {
    aads.push_back(test::bytes_from(rng, n));
    outs.emplace_back(in.size());
    tags.emplace_back(16);
  }
  std::vector<Request> batch;
  for (std::size_t i = 0; i < aads.size(); ++i)
    batch.push_back({.op = Operation::encrypt,
                     .iv = iv,
                     .aad = aads[i],
                     .in = in,
                     .out = outs[i],
                     .tag = tags[i]});
  EXPECT_EQ(preferred.process(batch), batch.size());
  for (std::size_t i = 0; i < aads.size(); ++i) {
    SCOPED_TRACE(aad_lengths[i]);
    EXPECT_EQ(batch[i].status, ErrorCode::ok);
    ByteVector got = outs[i];
    got.insert(got.end(), tags[i].begin(), tags[i].end());
    EXPECT_EQ(got, sealed_by(soft, aads[i]));
  }
}

// More live DPDK sessions than one pool holds (4096): a server with
// thousands of connections, each with its keys and shapes. Every session
// still gets one, pinned to the device, and each answers right.
TEST(DpdkSessions, MoreLiveSessionsThanOnePoolHoldsAreAllServed) {
  std::mt19937 rng(7);
  const ByteVector iv = test::bytes_from(rng, 12), in = test::bytes_from(rng, 64);
  constexpr int kSessions = 700, kShapes = 8;  // 5600 DPDK sessions
  std::vector<std::unique_ptr<AeadSession>> live;
  std::vector<ByteVector> keys;
  for (int s = 0; s < kSessions; ++s) {
    keys.push_back(test::bytes_from(rng, 16));
    live.push_back(std::make_unique<AeadSession>(
        "aes-128-gcm", keys.back(), SessionOptions{.driver = "dpdk:crypto_aesni_mb0"}));
    for (int a = 0; a < kShapes; ++a) {
      const ByteVector aad(static_cast<std::size_t>(a), 5);
      ByteVector out(in.size()), tag(16);
      ASSERT_NO_THROW(live.back()->seal(iv, aad, in, out, tag))
          << "session " << s << ", shape " << a;
    }
  }
  // The first and the last still answer as soft does.
  for (const int s : {0, kSessions - 1}) {
    AeadSession soft("aes-128-gcm", keys[static_cast<std::size_t>(s)], {.driver = "soft"});
    ByteVector out(in.size()), tag(16), soft_out(in.size()), soft_tag(16);
    live[static_cast<std::size_t>(s)]->seal(iv, {}, in, out, tag);
    soft.seal(iv, {}, in, soft_out, soft_tag);
    EXPECT_EQ(out, soft_out);
    EXPECT_EQ(tag, soft_tag);
  }
}

// More shapes in one batch than a session keeps (eight): the oldest are
// evicted while jobs of the burst being filled still name them, and the
// batch's requests of one shape share a lookup; every answer stays right.
TEST(DpdkShapes, ABatchOfMoreShapesThanKeptIsRightThroughout) {
  std::mt19937 rng(11);
  const ByteVector key = test::bytes_from(rng, 16), iv = test::bytes_from(rng, 12);
  AeadSession device("aes-128-gcm", key, {.driver = "dpdk:crypto_aesni_mb0"}),
      soft("aes-128-gcm", key, {.driver = "soft"});
  constexpr std::size_t kRequests = 150;
  std::vector<ByteVector> ins, aads, outs, tags;
  for (std::size_t i = 0; i < kRequests; ++i) {
    ins.push_back(test::bytes_from(rng, 64 + i));
    aads.push_back(test::bytes_from(rng, (i / 3) % 12));  // runs of three, twelve lengths
    outs.emplace_back(ins.back().size());
    tags.emplace_back(16);
  }
  std::vector<Request> batch;
  for (std::size_t i = 0; i < kRequests; ++i)
    batch.push_back({.op = Operation::encrypt,
                     .iv = iv,
                     .aad = aads[i],
                     .in = ins[i],
                     .out = outs[i],
                     .tag = tags[i]});
  EXPECT_EQ(device.process(batch), batch.size());
  for (std::size_t i = 0; i < kRequests; ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(batch[i].status, ErrorCode::ok);
    ByteVector out(ins[i].size()), tag(16);
    soft.seal(iv, aads[i], ins[i], out, tag);
    EXPECT_EQ(outs[i], out);
    EXPECT_EQ(tags[i], tag);
  }
}

// libipsec-mb takes no empty message to MAC: it reports success with a
// wrong MAC and spoils its session for every request after it. The driver
// makes an empty message's MAC itself from two plain hashes on the device,
// and the requests around it stay right.
TEST(DpdkEmpty, AnEmptyMessageIsMacedRightAndSpoilsNothing) {
  std::mt19937 rng(3);
  const ByteVector key = test::bytes_from(rng, 119);
  const std::vector<std::size_t> lengths = {0, 2235, 287, 0, 1204, 64, 1};
  for (const char* driver : {"dpdk:crypto_aesni_mb0", "dpdk:crypto_scheduler0"}) {
    SCOPED_TRACE(driver);
    MacSession device("hmac-sha256", key, {.driver = driver}),
        soft("hmac-sha256", key, {.driver = "soft"});
    std::vector<ByteVector> in, out, expected;
    for (std::size_t n : lengths) {
      in.push_back(test::bytes_from(rng, n));
      out.emplace_back(32);
      expected.push_back(soft.digest(in.back()));
    }
    std::vector<Request> batch;
    for (std::size_t i = 0; i < in.size(); ++i)
      batch.push_back({.op = Operation::digest, .in = in[i], .out = out[i]});
    device.process(batch);
    for (std::size_t i = 0; i < in.size(); ++i) {
      SCOPED_TRACE(lengths[i]);
      EXPECT_EQ(batch[i].status, ErrorCode::ok);
      EXPECT_EQ(out[i], expected[i]);
    }
  }
}

// DPDK's threads and devices stay with the parent: in a child, a session
// pinned to a device fails cleanly, and an automatic one is served
// elsewhere, with the right bytes.
TEST(DpdkFork, AChildFailsCleanlyPinnedAndIsServedElsewhereOtherwise) {
  const ByteVector key = test::random_bytes(16), iv = test::random_bytes(16),
                   in = test::random_bytes(1024);
  CipherSession before("aes-128-cbc", key, {.driver = "dpdk:crypto_aesni_mb0"});
  const ByteVector expected = before.encrypt(iv, in);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int status = 0;
    try {
      before.encrypt(iv, in);
      status = 2;  // served by the parent's device: it must not be
    } catch (const Error&) {
    }
    CipherSession automatic("aes-128-cbc", key);
    if (automatic.encrypt(iv, in) != expected) status = 3;
    _exit(status);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // The parent's device still serves.
  EXPECT_EQ(before.encrypt(iv, in), expected);
}

}  // namespace
}  // namespace cryptoaccel
