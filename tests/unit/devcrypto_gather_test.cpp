// The devcrypto server gathering requests on mb: asynchronous requests
// (CIOCASYNCCRYPT) wait there for company until a burst fills or their
// client polls or fetches; synchronous ones (CIOCCRYPT) of clients inside
// the server at once meet in one burst. Every request is answered once,
// with the bytes soft gives, and the session's IV chain is kept.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "abi/cryptodev.hpp"
#include "cryptoaccel/session.hpp"
#include "devcrypto/client.hpp"
#include "devcrypto/protocol.hpp"
#include "devcrypto/server_quota.hpp"
#include "devcrypto/service.hpp"
#include "devcrypto_kernel_sim.hpp"
#include "test_util.hpp"

namespace cryptoaccel::test {
namespace {

using namespace cryptodev;

bool mb_present(const Framework& framework) {
  for (const DriverInfo& d : framework.drivers())
    if (d.name == "mb") return true;
  return false;
}

// Requests and requests-per-burst that mb counted for AES-128-CBC.
BurstCount cbc_bursts(const Framework& framework) {
  BurstCount sum;
  for (const BurstUsage& b : framework.bursts())
    if (b.driver == "mb" && b.algorithm == AlgorithmId::aes_128_cbc) {
      sum.bursts += b.count.bursts;
      sum.requests += b.count.requests;
    }
  return sum;
}

class DevcryptoGather : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    framework_ = std::make_unique<Framework>(FrameworkOptions{.excluded_families = {"cryptodev"}});
  }
  static void TearDownTestSuite() { framework_.reset(); }
  void SetUp() override {
    if (!mb_present(*framework_)) GTEST_SKIP() << "no mb driver in this build or on this CPU";
    service_ = std::make_unique<devcrypto::Service>(
        *framework_, devcrypto::ServiceOptions{.driver = "mb", .max_sessions = 8});
  }

  int ioctl(devcrypto::Client& client, unsigned long cmd, void* arg, std::uint32_t caller = 1) {
    return simulate_ioctl(*service_, client, cmd, arg, caller).result;
  }
  std::uint32_t open_cbc(devcrypto::Client& client, const ByteVector& key) {
    SessionOp op{.cipher = kAesCbc, .keylen = static_cast<std::uint32_t>(key.size())};
    op.key = address(key.data());
    EXPECT_EQ(ioctl(client, kCiocGSession, &op), 0);
    return op.ses;
  }

  static inline std::unique_ptr<Framework> framework_;
  std::unique_ptr<devcrypto::Service> service_;
  devcrypto::ServerQuota quota_{{.open_files = 16, .sessions = 4096, .user_share = 1}};
};

// One asynchronous request and what soft makes of it.
struct AsyncCase {
  ByteVector iv, in, out, expected;
  CryptOp op{};
  AsyncCase(std::uint32_t ses, const ByteVector& key, std::size_t len, bool encrypt)
      : iv(random_bytes(16)), in(random_bytes(len)), out(len) {
    CipherSession soft("aes-128-cbc", key, {.driver = "soft"});
    expected = encrypt ? soft.encrypt(iv, in) : soft.decrypt(iv, in);
    op = CryptOp{
        .ses = ses, .op = encrypt ? kEncrypt : kDecrypt, .len = static_cast<std::uint32_t>(len)};
    op.src = address(in.data());
    op.dst = address(out.data());
    op.iv = address(iv.data());
  }
};

TEST_F(DevcryptoGather, AsynchronousRequestsWaitForCompanyUntilTheClientAsks) {
  devcrypto::Client client(quota_, 100);
  const ByteVector key = random_bytes(16);
  const std::uint32_t ses = open_cbc(client, key);
  std::vector<std::unique_ptr<AsyncCase>> cases;
  for (std::size_t len : {16u, 256u, 1024u})
    cases.push_back(std::make_unique<AsyncCase>(ses, key, len, true));
  const BurstCount before = cbc_bursts(*framework_);
  for (auto& c : cases) ASSERT_EQ(ioctl(client, kCiocAsyncCrypt, &c->op), 0);
  EXPECT_FALSE(client.has_results()) << "three requests wait for company";
  client.run_waiting();  // what poll() does
  EXPECT_TRUE(client.has_results());
  const BurstCount after = cbc_bursts(*framework_);
  EXPECT_EQ(after.bursts - before.bursts, 1u) << "all three in one burst";
  EXPECT_EQ(after.requests - before.requests, 3u);
  for (auto& c : cases) {
    CryptOp fetched{};
    ASSERT_EQ(ioctl(client, kCiocAsyncFetch, &fetched), 0);
    EXPECT_EQ(fetched.dst, c->op.dst) << "fetched in the order submitted";
    EXPECT_EQ(c->out, c->expected);
  }
  CryptOp none{};
  EXPECT_EQ(ioctl(client, kCiocAsyncFetch, &none), -EBUSY);

  // A fetch without a poll runs them too.
  AsyncCase late(ses, key, 64, false);
  ASSERT_EQ(ioctl(client, kCiocAsyncCrypt, &late.op), 0);
  CryptOp fetched{};
  ASSERT_EQ(ioctl(client, kCiocAsyncFetch, &fetched), 0);
  EXPECT_EQ(late.out, late.expected);
}

TEST_F(DevcryptoGather, TwoClientsRequestsMeetInOneBurst) {
  devcrypto::Client a(quota_, 200), b(quota_, 300);
  const ByteVector key_a = random_bytes(16), key_b = random_bytes(16);
  const std::uint32_t ses_a = open_cbc(a, key_a), ses_b = open_cbc(b, key_b);
  std::vector<std::unique_ptr<AsyncCase>> of_a, of_b;
  for (int i = 0; i < 2; ++i) {
    of_a.push_back(std::make_unique<AsyncCase>(ses_a, key_a, 512, true));
    of_b.push_back(std::make_unique<AsyncCase>(ses_b, key_b, 512 + 16 * i, true));
  }
  const BurstCount before = cbc_bursts(*framework_);
  for (auto& c : of_a) ASSERT_EQ(ioctl(a, kCiocAsyncCrypt, &c->op), 0);
  for (auto& c : of_b) ASSERT_EQ(ioctl(b, kCiocAsyncCrypt, &c->op), 0);
  CryptOp fetched{};
  EXPECT_FALSE(b.has_results());
  ASSERT_EQ(ioctl(a, kCiocAsyncFetch, &fetched), 0);  // runs the queue: b's too
  EXPECT_TRUE(b.has_results()) << "b's ran in a's burst";
  EXPECT_EQ(of_a[0]->out, of_a[0]->expected);
  ASSERT_EQ(ioctl(a, kCiocAsyncFetch, &fetched), 0);
  EXPECT_EQ(of_a[1]->out, of_a[1]->expected);
  for (auto& c : of_b) {
    ASSERT_EQ(ioctl(b, kCiocAsyncFetch, &fetched), 0);
    EXPECT_EQ(c->out, c->expected);
  }
  const BurstCount after = cbc_bursts(*framework_);
  EXPECT_EQ(after.requests - before.requests, 4u);
  EXPECT_EQ(after.bursts - before.bursts, 1u);
}

TEST_F(DevcryptoGather, ARequestWithoutAnIvContinuesFromAStartedOne) {
  devcrypto::Client client(quota_, 400);
  const ByteVector key = random_bytes(16);
  const std::uint32_t ses = open_cbc(client, key);
  AsyncCase first(ses, key, 64, true);
  ASSERT_EQ(ioctl(client, kCiocAsyncCrypt, &first.op), 0);
  // Synchronous, no IV: cryptodev-linux chains from the session's last one.
  const ByteVector more = random_bytes(48);
  ByteVector got(48);
  CryptOp next{.ses = ses, .op = kEncrypt, .len = 48};
  next.src = address(more.data());
  next.dst = address(got.data());
  ASSERT_EQ(ioctl(client, kCiocCrypt, &next), 0);
  CipherSession soft("aes-128-cbc", key, {.driver = "soft"});
  ByteVector joined = first.in;
  joined.insert(joined.end(), more.begin(), more.end());
  const ByteVector whole = soft.encrypt(first.iv, joined);
  EXPECT_EQ(got, ByteVector(whole.begin() + 64, whole.end()));
  CryptOp fetched{};
  ASSERT_EQ(ioctl(client, kCiocAsyncFetch, &fetched), 0);
  EXPECT_EQ(first.out, first.expected);
}

TEST_F(DevcryptoGather, AClientClosedWithRequestsWaitingLosesNothingElse) {
  const ByteVector key = random_bytes(16);
  std::vector<std::unique_ptr<AsyncCase>> cases;
  {
    devcrypto::Client client(quota_, 500);
    const std::uint32_t ses = open_cbc(client, key);
    for (int i = 0; i < 5; ++i) cases.push_back(std::make_unique<AsyncCase>(ses, key, 160, true));
    for (auto& c : cases) ASSERT_EQ(ioctl(client, kCiocAsyncCrypt, &c->op), 0);
  }  // closed: the requests run to their end before their buffers go
  for (auto& c : cases) EXPECT_EQ(c->out, ByteVector(160, 0)) << "never fetched, never written";
}

// Clients on threads of their own, as CUSE's workers serve them: every
// synchronous request is answered once with soft's bytes, asynchronous
// ones of the same clients mixed in.
TEST_F(DevcryptoGather, SynchronousRequestsOfManyClientsAreRightAndMeet) {
  constexpr int kClients = 6, kRounds = 150;
  std::atomic<int> wrong{0};
  const BurstCount before = cbc_bursts(*framework_);
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t)
    threads.emplace_back([&, t] {
      devcrypto::Client client(quota_, 1000u * static_cast<unsigned>(t + 1));
      std::mt19937 rng(static_cast<unsigned>(t) + 7);
      const ByteVector key = random_bytes(16);
      const std::uint32_t ses = open_cbc(client, key);
      const auto caller = static_cast<std::uint32_t>(t + 1);
      for (int round = 0; round < kRounds; ++round) {
        const std::size_t len = 16 * (1 + rng() % 64);
        AsyncCase c(ses, key, len, rng() % 2 == 0);
        if (round % 5 == 4) {
          if (ioctl(client, kCiocAsyncCrypt, &c.op, caller) != 0) ++wrong;
          CryptOp fetched{};
          if (ioctl(client, kCiocAsyncFetch, &fetched, caller) != 0) ++wrong;
        } else if (ioctl(client, kCiocCrypt, &c.op, caller) != 0) {
          ++wrong;
        }
        if (c.out != c.expected) ++wrong;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  const BurstCount after = cbc_bursts(*framework_);
  EXPECT_EQ(after.requests - before.requests, std::uint64_t{kClients * kRounds})
      << "each request served once, all on mb";
  std::printf("%llu requests in %llu bursts\n",
              static_cast<unsigned long long>(after.requests - before.requests),
              static_cast<unsigned long long>(after.bursts - before.bursts));
}

}  // namespace
}  // namespace cryptoaccel::test
