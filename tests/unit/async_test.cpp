// The asynchronous API under fault injection: every request completes
// exactly once, with the right answer or a clear error, whatever the driver
// does (fails every Nth request, answers wrongly, hangs); counters prove it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <thread>

#include "cryptoaccel/cryptoaccel.hpp"
#include "fault_driver.hpp"
#include "test_util.hpp"

namespace cryptoaccel {
namespace {

using test::ByteVector;
using test::Faults;
using test::random_bytes;

struct Item {
  ByteVector iv, in, out, expected;
  bool in_place = false;
  Request request;
  std::atomic<int> completions{0};
};

// A framework with the faulty "accel" (hardware, first under `offload`)
// beside soft.
struct Bed {
  Faults faults;
  std::unique_ptr<Framework> framework;
  long self_test_requests = 0;
  explicit Bed(unsigned failures_to_quarantine = 3, unsigned quarantine_ms = 60000) {
    FrameworkOptions o;
    o.policy = Policy::offload;
    o.failures_to_quarantine = failures_to_quarantine;
    o.quarantine_ms = quarantine_ms;
    o.drivers.push_back(std::make_unique<test::FaultyDriver>("accel", faults));
    framework = std::make_unique<Framework>(std::move(o));
    self_test_requests = faults.processed.load();
  }
};

// `count` CBC requests of 16 to 4096 bytes, encrypt and decrypt, every
// `in_place_every`th in place, with soft's answers.
std::deque<Item> make_items(const ByteVector& key, std::size_t count, std::size_t in_place_every) {
  CipherSession soft("aes-128-cbc", key, {.driver = "soft"});
  std::deque<Item> items(count);
  for (std::size_t i = 0; i < count; ++i) {
    Item& it = items[i];
    const std::size_t size = 16 * (1 + (i * 37) % 256);
    it.iv = random_bytes(16);
    it.in = random_bytes(size);
    const bool encrypt = i % 2 == 0;
    it.expected = encrypt ? soft.encrypt(it.iv, it.in) : soft.decrypt(it.iv, it.in);
    it.in_place = in_place_every != 0 && i % in_place_every == 0;
    it.out = it.in_place ? it.in : ByteVector(size);
    it.request = {.op = encrypt ? Operation::encrypt : Operation::decrypt,
                  .iv = it.iv,
                  .in = it.in_place ? std::span<const std::uint8_t>(it.out) : it.in,
                  .out = it.out,
                  .user = &it};
  }
  return items;
}

// Submits in batches of 25 from two threads at once.
void submit_all(AsyncSession& session, std::deque<Item>& items) {
  const auto on_complete = [](Request& r) { ++static_cast<Item*>(r.user)->completions; };
  const auto submit_range = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; i += 25) {
      std::vector<Request*> unused;
      for (std::size_t k = i; k < std::min(to, i + 25); ++k)
        session.submit(items[k].request, on_complete);
    }
  };
  std::thread other([&] { submit_range(items.size() / 2, items.size()); });
  submit_range(0, items.size() / 2);
  other.join();
  session.wait();
}

// Each item completed once; right answer, or (in place, input lost to a
// failed driver) a driver failure. Returns how many failed cleanly.
std::size_t check_items(std::deque<Item>& items) {
  std::size_t clean_failures = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    Item& it = items[i];
    EXPECT_EQ(it.completions.load(), 1) << "request " << i;
    if (it.request.status == ErrorCode::ok) {
      EXPECT_EQ(it.out, it.expected) << "request " << i << " of " << it.in.size() << " bytes";
    } else {
      EXPECT_TRUE(it.in_place) << "request " << i << ": " << to_string(it.request.status);
      EXPECT_EQ(it.request.status, ErrorCode::driver_failure);
      ++clean_failures;
    }
  }
  return clean_failures;
}

TEST(Async, ManyRequestsCompleteOnceWithRightAnswers) {
  Bed bed;
  const ByteVector key = random_bytes(16);
  auto items = make_items(key, 1000, 0);
  AsyncSession session("aes-128-cbc", key, {.framework = bed.framework.get(), .workers = 3});
  submit_all(session, items);
  EXPECT_EQ(check_items(items), 0u);
  const AsyncStats s = session.stats();
  EXPECT_EQ(s.submitted, 1000u);
  EXPECT_EQ(s.completed, 1000u);
  EXPECT_EQ(s.failed, 0u);
  EXPECT_TRUE(session.poll());
  EXPECT_EQ(bed.faults.processed.load() - bed.self_test_requests, 1000);  // all on accel
}

TEST(Async, AeadAndDigestRequests) {
  const ByteVector key = random_bytes(16), iv = random_bytes(12), aad = random_bytes(20);
  const ByteVector pt = random_bytes(1000);
  AeadSession soft("aes-128-gcm", key, {.driver = "soft"});
  ByteVector ct(pt.size()), tag(16);
  soft.seal(iv, aad, pt, ct, tag);
  AsyncSession gcm("aes-128-gcm", key);
  ByteVector sealed(pt.size()), sealed_tag(16), opened(pt.size()), forged_out(pt.size(), 0xaa);
  ByteVector forged_tag = tag;
  forged_tag[0] ^= 1;
  Request requests[3] = {
      {.op = Operation::encrypt, .iv = iv, .aad = aad, .in = pt, .out = sealed, .tag = sealed_tag},
      {.op = Operation::decrypt, .iv = iv, .aad = aad, .in = ct, .out = opened, .tag = tag},
      {.op = Operation::decrypt,
       .iv = iv,
       .aad = aad,
       .in = ct,
       .out = forged_out,
       .tag = forged_tag}};
  gcm.submit(requests);
  gcm.wait();
  EXPECT_EQ(requests[0].status, ErrorCode::ok);
  EXPECT_EQ(sealed, ct);
  EXPECT_EQ(sealed_tag, tag);
  EXPECT_EQ(requests[1].status, ErrorCode::ok);
  EXPECT_EQ(opened, pt);
  EXPECT_EQ(requests[2].status, ErrorCode::authentication_failed);
  EXPECT_EQ(forged_out, ByteVector(pt.size(), 0)) << "unauthenticated plaintext released";

  AsyncSession sha("sha256", {});
  DigestSession reference("sha256");
  ByteVector digest(32);
  Request d{.op = Operation::digest, .in = pt, .out = digest};
  sha.submit(d);
  sha.wait();
  EXPECT_EQ(d.status, ErrorCode::ok);
  EXPECT_EQ(digest, reference.digest(pt));
}

TEST(Async, BadRequestsCompleteAtOnceWithTheirStatus) {
  AsyncSession session("aes-128-cbc", random_bytes(16));
  const ByteVector short_iv = random_bytes(8), iv = random_bytes(16), odd = random_bytes(17);
  ByteVector out(32);
  Request bad[2] = {{.op = Operation::encrypt, .iv = short_iv, .in = out, .out = out},
                    {.op = Operation::encrypt, .iv = iv, .in = odd, .out = out}};
  int calls = 0;
  session.submit(bad, [&](Request&) { ++calls; });
  session.wait();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(bad[0].status, ErrorCode::invalid_iv_length);
  EXPECT_EQ(bad[1].status, ErrorCode::invalid_length);
  EXPECT_EQ(session.stats().failed, 2u);
}

TEST(Failover, DriverFailingEveryThirdRequestLosesNothing) {
  Bed bed(0);  // no quarantine: the driver keeps failing every third request
  bed.faults.fail_every = 3;
  const ByteVector key = random_bytes(16);
  auto items = make_items(key, 900, 10);  // every 10th in place
  std::size_t clean = 0;
  {
    AsyncSession session("aes-128-cbc", key, {.framework = bed.framework.get(), .workers = 2});
    submit_all(session, items);
    clean = check_items(items);
    const AsyncStats s = session.stats();
    EXPECT_EQ(s.completed, 900u);
    EXPECT_EQ(s.failed, clean);
  }  // usage counters are published when the workers' sessions end
  std::uint64_t accel_failures = 0, soft_requests = 0;
  for (const UsageCount& u : bed.framework->usage()) {
    if (u.driver == "accel") accel_failures += u.failures;
    if (u.driver == "soft") soft_requests += u.requests;
  }
  // Every failure was either re-run on soft or (in place) reported.
  EXPECT_GT(accel_failures, 200u);
  EXPECT_EQ(accel_failures, soft_requests + clean);
}

// A driver that declines requests of a batch it was given (a length its
// device turns down after all) has them served by the next driver,
// untouched, in place or not; pinned to it, they stay declined.
TEST(Failover, RequestsADriverDeclinesInABatchGoToTheNextDriver) {
  Bed bed;
  const ByteVector key = random_bytes(16);
  CipherSession soft("aes-128-cbc", key, {.driver = "soft"});
  for (const bool pinned : {false, true}) {
    bed.faults.decline_every = 3;
    const long first = bed.faults.processed.load() + 1;
    CipherSession s("aes-128-cbc", key,
                    {.framework = bed.framework.get(), .driver = pinned ? "accel" : ""});
    std::vector<ByteVector> in(12), out(12), expected(12);
    const ByteVector iv = random_bytes(16);
    std::vector<Request> batch(12);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      in[i] = random_bytes(64);
      expected[i] = soft.encrypt(iv, in[i]);
      const bool in_place = i % 2 == 0;
      out[i] = in_place ? in[i] : ByteVector(64);
      ByteVector& target = in_place ? in[i] : out[i];
      batch[i] = {
          .op = Operation::encrypt, .iv = iv, .in = in_place ? target : in[i], .out = target};
    }
    const std::size_t succeeded = s.process(batch);
    bed.faults.decline_every = 0;
    std::size_t declined = 0;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const bool was_declined = (first + static_cast<long>(i)) % 3 == 0;
      const ByteVector& result = i % 2 == 0 ? in[i] : out[i];
      if (pinned && was_declined) {
        ++declined;
        EXPECT_EQ(batch[i].status, ErrorCode::unsupported) << "request " << i;
        continue;
      }
      EXPECT_EQ(batch[i].status, ErrorCode::ok) << "request " << i << (pinned ? ", pinned" : "");
      EXPECT_EQ(result, expected[i]) << "request " << i << (pinned ? ", pinned" : "");
    }
    EXPECT_EQ(succeeded, batch.size() - declined);
    if (pinned) {
      EXPECT_EQ(declined, 4u);
    }
  }
}

TEST(Failover, KeepsFailingMeansQuarantined) {
  Bed bed(3);
  bed.faults.fail_every = 1;  // every request
  const ByteVector key = random_bytes(16);
  auto items = make_items(key, 200, 0);
  AsyncSession session("aes-128-cbc", key, {.framework = bed.framework.get()});
  submit_all(session, items);
  EXPECT_EQ(check_items(items), 0u);
  EXPECT_EQ(bed.framework->dispatch_info().quarantined, std::vector<std::string>{"accel"});
  // Quarantined: far fewer than 200 requests reached it.
  EXPECT_LT(bed.faults.processed.load() - bed.self_test_requests, 60);
}

TEST(Failover, WrongAnswersAreCaughtByVerification) {
  Bed bed(0);
  bed.faults.wrong_every = 5;
  const ByteVector key = random_bytes(16);
  auto items = make_items(key, 500, 7);  // in place too: verification works on copies
  AsyncSession session("aes-128-cbc", key,
                       {.framework = bed.framework.get(), .workers = 2, .verify_every = 1});
  submit_all(session, items);
  EXPECT_EQ(check_items(items), 0u);
  const AsyncStats s = session.stats();
  EXPECT_EQ(s.verified, 500u);
  EXPECT_GE(s.mismatches, 90u);
  EXPECT_LE(s.mismatches, 110u);
}

TEST(Failover, HungDriverIsTimedOutAndItsRequestsRerun) {
  Bed bed(3);
  bed.faults.hang_at = bed.self_test_requests + 40;
  const ByteVector key = random_bytes(16);
  auto items = make_items(key, 300, 9);
  {
    AsyncSession session("aes-128-cbc", key,
                         {.framework = bed.framework.get(),
                          .workers = 2,
                          .timeout = std::chrono::milliseconds(100)});
    submit_all(session, items);  // returns although one call is still stuck
    EXPECT_EQ(bed.faults.hung.load(), 1);
    EXPECT_EQ(check_items(items), 0u);
    const AsyncStats s = session.stats();
    EXPECT_EQ(s.completed, 300u);
    EXPECT_GE(s.timeouts, 1u);
    EXPECT_EQ(bed.framework->dispatch_info().quarantined, std::vector<std::string>{"accel"});
    bed.faults.release();  // the stuck call returns: its results must be discarded
    for (int i = 0; i < 200 && session.stats().late_results == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_GE(session.stats().late_results, 1u);
    EXPECT_EQ(session.stats().completed, 300u);
  }
  for (const Item& it : items) EXPECT_EQ(it.completions.load(), 1);
}

// A slow driver beside soft, with a timeout: a batch is re-run on soft
// while the slow call may still finish first, so two attempts race to
// complete each request. A caller may free a request's buffers as soon as
// it completes, in its own callback, as this one does; the attempt that
// lost must never read them again (under ASan that read was a
// heap-use-after-free: the re-run copied each request's input after the
// slow call had completed and the callback freed it). The slow call's
// length is swept across the time the re-run spends copying the batch, so
// that it ends in the middle of that copy in some rounds (the timeout is
// 2 ms, checked every millisecond; the call takes 0.5 to 3.5 ms plus the
// work). Quarantine lasts 1 ms: the slow driver is chosen and raced
// again, round after round.
TEST(Failover, TimedOutCallsNeverTouchARequestAfterItCompleted) {
  Faults faults;
  FrameworkOptions o;
  o.policy = Policy::offload;
  o.quarantine_ms = 1;
  o.drivers.push_back(std::make_unique<test::FaultyDriver>("accel", faults, 16));
  Framework framework(std::move(o));
  const ByteVector key = random_bytes(16);
  AsyncSession session(
      "aes-128-cbc", key,
      {.framework = &framework, .workers = 2, .timeout = std::chrono::milliseconds(2)});
  CipherSession soft("aes-128-cbc", key, {.driver = "soft"});
  struct Owned {
    ByteVector iv, in, out, expected;
  };
  constexpr int kRounds = 120;
  constexpr std::size_t kBatch = 16;  // one chunk, one driver call
  // Under TSan every byte copied or decrypted costs several times more, so
  // a quarter of the size spans the same part of the sweep (the round took
  // a second there at 256 KiB; the races it looks for are the same).
  constexpr std::size_t kRequestBytes = test::kUnderThreadSanitizer ? 64 << 10 : 256 << 10;
  std::atomic<int> completions{0}, wrong{0};
  for (int round = 0; round < kRounds; ++round) {
    faults.delay_us = 500 + static_cast<unsigned>(round * 97 % 3000);
    std::vector<Request> batch(kBatch);
    for (Request& r : batch) {
      auto* owned = new Owned{random_bytes(16), random_bytes(kRequestBytes), {}, {}};
      owned->out.resize(owned->in.size());
      owned->expected = soft.decrypt(owned->iv, owned->in);
      r = {.op = Operation::decrypt,
           .iv = owned->iv,
           .in = owned->in,
           .out = owned->out,
           .user = owned};
    }
    session.submit(batch, [&](Request& r) {
      std::unique_ptr<Owned> owned(static_cast<Owned*>(r.user));  // freed here, at once
      if (r.status != ErrorCode::ok || owned->out != owned->expected) ++wrong;
      ++completions;
    });
    session.wait();
  }
  EXPECT_EQ(completions.load(), kRounds * static_cast<int>(kBatch));
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GE(session.stats().timeouts, 1u);
  EXPECT_EQ(session.stats().completed, static_cast<std::uint64_t>(kRounds) * kBatch);
}

// Every timeout abandons a worker to its stuck call and starts another.
// The abandoned thread ends when its call returns, and must be joined
// then: until it is, its stack (8 MiB) stays mapped. Unjoined, a session
// that timed out a few hundred times used up a 32-bit process's address
// space, the replacement thread could not be made, and wait() never
// returned (found under qemu-arm). Here every call outlasts the timeout.
TEST(Failover, AbandonedWorkersAreJoinedWhenTheirCallsReturn) {
  Faults faults;
  faults.delay_us = 5000;
  FrameworkOptions o;
  o.policy = Policy::offload;
  o.quarantine_ms = 1;
  o.drivers.push_back(std::make_unique<test::FaultyDriver>("accel", faults, 16));
  Framework framework(std::move(o));
  const ByteVector key = random_bytes(16), iv = random_bytes(16);
  AsyncSession session(
      "aes-128-cbc", key,
      {.framework = &framework, .workers = 2, .timeout = std::chrono::milliseconds(2)});
  std::vector<ByteVector> in(16, random_bytes(4096)), out(16, ByteVector(4096));
  for (int round = 0; round < 50; ++round) {
    std::vector<Request> batch(16);
    for (std::size_t k = 0; k < batch.size(); ++k)
      batch[k] = {.op = Operation::decrypt, .iv = iv, .in = in[k], .out = out[k]};
    session.submit(batch);
    ASSERT_TRUE(session.wait_for(std::chrono::seconds(60))) << "round " << round;
  }
  ASSERT_GE(session.stats().timeouts, 16u) << "the calls must outlast the timeout";
  // The last abandoned call returns within its 5 ms; the watchdog joins it
  // at its next look (every millisecond).
  for (int i = 0; i < 1000 && session.stats().threads > 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(session.stats().threads, 2u) << session.stats().timeouts << " requests timed out";
}

// With soft the only driver, a call slower than the timeout has nowhere
// else to go: its requests wait for it and complete with soft's answers
// (re-running them avoided soft and reported `unsupported`).
TEST(Failover, TimeoutWithNoOtherDriverWaitsForTheCall) {
  FrameworkOptions o;
  o.excluded_families = {"afalg", "cryptodev", "mb"};
  Framework framework(std::move(o));
  const ByteVector key = random_bytes(16);
  CipherSession soft("aes-128-cbc", key, {.framework = &framework, .driver = "soft"});
  // 4 MiB takes soft a few milliseconds: well over a 1 ms timeout.
  std::deque<Item> items(8);
  for (Item& it : items) {
    it.iv = random_bytes(16);
    it.in = random_bytes(4 << 20);
    it.expected = soft.encrypt(it.iv, it.in);
    it.out.resize(it.in.size());
    it.request = {.op = Operation::encrypt, .iv = it.iv, .in = it.in, .out = it.out, .user = &it};
  }
  AsyncSession session(
      "aes-128-cbc", key,
      {.framework = &framework, .workers = 2, .timeout = std::chrono::milliseconds(1)});
  submit_all(session, items);
  EXPECT_EQ(check_items(items), 0u);
  EXPECT_EQ(session.stats().failed, 0u);
  EXPECT_EQ(session.stats().timeouts, 0u);
  EXPECT_TRUE(framework.dispatch_info().quarantined.empty());
}

// Two equivalent hardware instances: sessions and batches are spread over
// both (least outstanding work, ties to the one chosen least). One worker
// runs the asynchronous requests: with two, a worker that the scheduler
// stops inside one instance leaves it looking busy, and the other then
// rightly sends everything to the second instance, so the shares would say
// more about the scheduler than about the spreading.
TEST(Spread, EquivalentHardwareInstancesShareTheLoad) {
  Faults one, two;
  FrameworkOptions o;
  o.policy = Policy::offload;
  o.drivers.push_back(std::make_unique<test::FaultyDriver>("accel1", one));
  o.drivers.push_back(std::make_unique<test::FaultyDriver>("accel2", two));
  Framework f(std::move(o));
  const long base_one = one.processed.load(), base_two = two.processed.load();
  const ByteVector key = random_bytes(16), iv = random_bytes(16);
  CipherSession a("aes-128-cbc", key, {.framework = &f});
  CipherSession b("aes-128-cbc", key, {.framework = &f});
  a.encrypt(iv, random_bytes(32));
  b.encrypt(iv, random_bytes(32));
  EXPECT_NE(a.last_driver(), b.last_driver()) << "both sessions on " << a.last_driver();

  auto items = make_items(key, 800, 0);
  AsyncSession session("aes-128-cbc", key, {.framework = &f, .workers = 1});
  submit_all(session, items);
  EXPECT_EQ(check_items(items), 0u);
  const long served_one = one.processed.load() - base_one,
             served_two = two.processed.load() - base_two;
  EXPECT_EQ(served_one + served_two, 802);
  EXPECT_GT(served_one, 200) << "accel1 " << served_one << ", accel2 " << served_two;
  EXPECT_GT(served_two, 200) << "accel1 " << served_one << ", accel2 " << served_two;
}

}  // namespace
}  // namespace cryptoaccel
