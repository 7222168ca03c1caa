// Which driver serves a request: policies, pinning, the null driver, and
// fallback when a driver fails.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <atomic>

#include "cryptoaccel/cryptoaccel.hpp"
#include "test_drivers.hpp"
#include "test_util.hpp"

namespace cryptoaccel {
namespace {

using test::Behaviour;
using test::ByteVector;
using test::DriverControl;
using test::random_bytes;

struct Bed {
  DriverControl control;
  std::unique_ptr<Framework> framework;
  explicit Bed(Policy policy) {
    FrameworkOptions options;
    options.policy = policy;
    options.drivers.push_back(
        std::make_unique<test::TestCbcDriver>("accel", DriverKind::hardware, control));
    framework = std::make_unique<Framework>(std::move(options));
  }
  SessionOptions options(std::string driver = {}) {
    return {.framework = framework.get(), .driver = std::move(driver)};
  }
};

const UsageCount* find_usage(const std::vector<UsageCount>& usage, std::string_view driver) {
  for (const auto& u : usage)
    if (u.driver == driver && u.algorithm == AlgorithmId::aes_128_cbc) return &u;
  return nullptr;
}

TEST(Dispatch, PoliciesOrderSoftwareAndHardware) {
  Bed offload(Policy::offload);
  CipherSession a("aes-128-cbc", random_bytes(16), offload.options());
  a.encrypt(random_bytes(16), random_bytes(32));
  EXPECT_EQ(a.last_driver(), "accel");

  Bed fastest(Policy::fastest);  // without a profile: software first
  CipherSession b("aes-128-cbc", random_bytes(16), fastest.options());
  b.encrypt(random_bytes(16), random_bytes(32));
  EXPECT_EQ(b.last_driver(), "soft");

  Bed software(Policy::software);
  software.control.behaviour = Behaviour::fail_requests;
  CipherSession c("aes-128-cbc", random_bytes(16), software.options());
  c.encrypt(random_bytes(16), random_bytes(32));
  EXPECT_EQ(c.last_driver(), "soft");
  EXPECT_EQ(software.framework->policy(), Policy::software);
}

// The provider's `driver =` is a preference: a request its driver lacks the
// operation for goes to the dispatcher; a strict pin fails it.
TEST(Dispatch, APreferenceSendsWhatItsDriverLacksToTheDispatcher) {
  DriverControl control;
  FrameworkOptions framework_options;
  auto encrypt_only = std::make_unique<test::TestCbcDriver>("accel", DriverKind::hardware, control);
  encrypt_only->take_only(operation_bit(Operation::encrypt));
  framework_options.drivers.push_back(std::move(encrypt_only));
  Framework framework(std::move(framework_options));
  const ByteVector key = random_bytes(16), iv = random_bytes(16), plain = random_bytes(64);

  CipherSession preferred("aes-128-cbc", key,
                          {.framework = &framework, .driver = "accel", .fall_back = true});
  const ByteVector cipher = preferred.encrypt(iv, plain);
  EXPECT_EQ(preferred.last_driver(), "accel");
  const int processed = control.processed.load();  // with the self-test's
  EXPECT_EQ(preferred.decrypt(iv, cipher), plain);
  EXPECT_EQ(preferred.last_driver(), "soft");
  EXPECT_EQ(control.processed.load(), processed);  // never offered to "accel"
  preferred.encrypt(iv, plain);                    // the preference stays first
  EXPECT_EQ(preferred.last_driver(), "accel");
  EXPECT_EQ(control.processed.load(), processed + 1);

  CipherSession strict("aes-128-cbc", key, {.framework = &framework, .driver = "accel"});
  EXPECT_EQ(strict.encrypt(iv, plain), cipher);
  EXPECT_THROW(strict.decrypt(iv, cipher), Unsupported);
}

// A preference whose driver refuses the key when the session opens (soft and
// a key in the kernel keyring) goes to the dispatcher; a strict pin reports
// the refusal. In the dispatcher's walk, another driver that refuses the key
// is passed over, and the refusal is no failure of either.
TEST(Dispatch, APreferenceWhoseDriverRefusesTheKeyGoesToTheDispatcher) {
  DriverControl control, other_control;
  FrameworkOptions framework_options;
  framework_options.policy = Policy::offload;  // hardware first: "other" before soft
  const ByteVector key = random_bytes(16), iv = random_bytes(16), plain = random_bytes(64);
  auto refusing = std::make_unique<test::TestCbcDriver>("accel", DriverKind::hardware, control);
  refusing->refuse_key(key);
  auto other = std::make_unique<test::TestCbcDriver>("other", DriverKind::hardware, other_control);
  other->refuse_key(key);
  framework_options.drivers.push_back(std::move(refusing));
  framework_options.drivers.push_back(std::move(other));
  Framework framework(std::move(framework_options));
  const int self_tested = control.processed.load() + other_control.processed.load();

  ByteVector cipher;
  {
    CipherSession preferred("aes-128-cbc", key,
                            {.framework = &framework, .driver = "accel", .fall_back = true});
    cipher = preferred.encrypt(iv, plain);
    EXPECT_EQ(preferred.last_driver(), "soft");
    EXPECT_EQ(preferred.decrypt(iv, cipher), plain);
    EXPECT_EQ(preferred.last_driver(), "soft");

    CipherSession strict("aes-128-cbc", key, {.framework = &framework, .driver = "accel"});
    EXPECT_THROW(strict.encrypt(iv, plain), InvalidKey);

    CipherSession dispatched("aes-128-cbc", key, {.framework = &framework});
    EXPECT_EQ(dispatched.encrypt(iv, plain), cipher);
    EXPECT_EQ(dispatched.last_driver(), "soft");
  }  // counters are published when the sessions end
  for (const UsageCount& u : framework.usage())
    EXPECT_EQ(u.failures, 0u) << u.driver << " counted a refused key as a failure";
  EXPECT_EQ(control.processed.load() + other_control.processed.load(), self_tested);
}

TEST(Dispatch, RequestsTooLargeForADriverGoElsewhere) {
  Bed bed(Policy::offload);
  CipherSession s("aes-128-cbc", random_bytes(16), bed.options());
  s.encrypt(random_bytes(16), random_bytes(8192));  // the test driver takes 4096 at most
  EXPECT_EQ(s.last_driver(), "soft");
  s.encrypt(random_bytes(16), random_bytes(4096));
  EXPECT_EQ(s.last_driver(), "accel");
}

// AES-128-XTS in whole blocks only, as cryptodev-linux takes it (the
// module answers EINVAL to other lengths). It counts what it is sent.
class WholeBlockXtsDriver final : public Driver {
 public:
  explicit WholeBlockXtsDriver(std::size_t input_multiple = 16) {
    capability_.input_multiple = input_multiple;
  }
  std::atomic<int> served{0}, partial_blocks{0};

  std::string_view name() const noexcept override { return "blocks"; }
  std::string description() const override { return "XTS in whole blocks (test driver)"; }
  DriverTraits traits() const noexcept override {
    return {.kind = DriverKind::hardware, .priority = 300};
  }
  std::span<const Capability> capabilities() const noexcept override { return {&capability_, 1}; }
  std::unique_ptr<DriverSession> open_session(const Algorithm&,
                                              std::span<const std::uint8_t> key) override {
    return std::make_unique<Session>(*this, ByteVector(key.begin(), key.end()));
  }

 private:
  class Session final : public DriverSession {
   public:
    Session(WholeBlockXtsDriver& driver, ByteVector key) : driver_(driver), key_(std::move(key)) {}
    std::size_t process(std::span<Request> batch) noexcept override {
      for (Request& r : batch) {
        if (r.in.size() % 16 != 0) {
          ++driver_.partial_blocks;
          r.status = ErrorCode::invalid_length;
          continue;
        }
        ++driver_.served;
        EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
        int len = 0;
        const bool ok = ctx &&
                        EVP_CipherInit_ex2(ctx, EVP_aes_128_xts(), key_.data(), r.iv.data(),
                                           r.op == Operation::encrypt ? 1 : 0, nullptr) == 1 &&
                        EVP_CipherUpdate(ctx, r.out.data(), &len, r.in.data(),
                                         static_cast<int>(r.in.size())) == 1;
        EVP_CIPHER_CTX_free(ctx);
        r.status = ok ? ErrorCode::ok : ErrorCode::driver_failure;
      }
      return batch.size();
    }

   private:
    WholeBlockXtsDriver& driver_;
    ByteVector key_;
  };
  Capability capability_{.algorithm = AlgorithmId::aes_128_xts,
                         .key_sizes = {32, 32},
                         .iv_sizes = {16, 16},
                         .tag_sizes = {0, 0},
                         .max_request = 1 << 16};
};

// Encryptions of random inputs of these sizes, one IV, each into its own output.
struct EncryptionBatch {
  std::vector<ByteVector> in, out;
  std::vector<Request> requests;
  EncryptionBatch(const std::vector<std::size_t>& sizes, const ByteVector& iv) {
    for (const std::size_t size : sizes) {
      in.push_back(random_bytes(size));
      out.emplace_back(size);
    }
    for (std::size_t k = 0; k < sizes.size(); ++k)
      requests.push_back({.iv = iv, .in = in[k], .out = out[k]});
  }
};

TEST(Dispatch, ABatchSendsRequestsTooLargeForADriverElsewhere) {
  Bed bed(Policy::offload);
  const ByteVector key = random_bytes(16), iv = random_bytes(16);
  CipherSession s("aes-128-cbc", key, bed.options());
  CipherSession soft("aes-128-cbc", key, bed.options("soft"));
  const std::vector<std::size_t> sizes{4096, 16, 8192, 4096, 8192, 8192, 32};
  EncryptionBatch batch(sizes, iv);
  const int before = bed.control.processed.load();
  ASSERT_EQ(s.process(batch.requests), sizes.size());
  for (std::size_t k = 0; k < sizes.size(); ++k)
    EXPECT_EQ(batch.out[k], soft.encrypt(iv, batch.in[k])) << sizes[k] << " bytes";
  EXPECT_EQ(bed.control.processed.load() - before, 4);  // the test driver takes 4096 at most
}

// A driver that takes XTS in whole blocks only gets whole blocks; the other
// lengths go to soft, also right after the whole-block route was cached.
// A framework whose one driver besides soft is a WholeBlockXtsDriver, under `offload`.
struct WholeBlockBed {
  WholeBlockXtsDriver* driver = nullptr;
  std::unique_ptr<Framework> framework;
  WholeBlockBed() {
    FrameworkOptions options;
    options.policy = Policy::offload;
    auto owned = std::make_unique<WholeBlockXtsDriver>();
    driver = owned.get();
    options.drivers.push_back(std::move(owned));
    framework = std::make_unique<Framework>(std::move(options));
  }
};

TEST(Dispatch, LengthsOutsideADriversMultipleGoElsewhere) {
  WholeBlockBed bed;
  WholeBlockXtsDriver& blocks = *bed.driver;
  Framework& framework = *bed.framework;
  const int self_test = blocks.served.load();
  const ByteVector key = random_bytes(32);
  CipherSession s("aes-128-xts", key, {.framework = &framework});
  CipherSession soft("aes-128-xts", key, {.framework = &framework, .driver = "soft"});
  const ByteVector tweak = random_bytes(16);
  for (const std::size_t size : {32, 33, 48, 17, 4096, 4095, 16, 31}) {
    const ByteVector in = random_bytes(size);
    EXPECT_EQ(s.encrypt(tweak, in), soft.encrypt(tweak, in)) << size << " bytes";
    EXPECT_EQ(s.last_driver(), size % 16 == 0 ? "blocks" : "soft") << size << " bytes";
  }
  EXPECT_EQ(blocks.served.load(), self_test + 4);
  EXPECT_EQ(blocks.partial_blocks.load(), 0);
  // Pinned, a length it does not take is refused, not sent to it.
  CipherSession pinned("aes-128-xts", key, {.framework = &framework, .driver = "blocks"});
  EXPECT_THROW(pinned.encrypt(tweak, random_bytes(33)), Unsupported);
  EXPECT_EQ(blocks.partial_blocks.load(), 0);
}

// The same through the batch path, which compares only sizes where a
// driver's capability is as wide as the algorithm: a stricter multiple
// still ends a run, and the rest go elsewhere (pinned: are refused).
TEST(Dispatch, ABatchGivesAWholeBlockDriverOnlyWholeBlocks) {
  WholeBlockBed bed;
  Framework& framework = *bed.framework;
  const ByteVector key = random_bytes(32), tweak = random_bytes(16);
  CipherSession soft("aes-128-xts", key, {.framework = &framework, .driver = "soft"});
  const std::vector<std::size_t> sizes{32, 48, 33, 64, 17, 4096, 4095, 16, 16, 31};
  for (const char* driver : {"", "blocks"}) {
    CipherSession s("aes-128-xts", key, {.framework = &framework, .driver = driver});
    EncryptionBatch batch(sizes, tweak);
    const std::size_t whole = 6;
    EXPECT_EQ(s.process(batch.requests), *driver ? whole : sizes.size()) << driver;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      if (*driver && sizes[k] % 16 != 0) {
        EXPECT_EQ(batch.requests[k].status, ErrorCode::unsupported) << sizes[k] << " bytes";
        continue;
      }
      EXPECT_EQ(batch.requests[k].status, ErrorCode::ok) << sizes[k] << " bytes";
      EXPECT_EQ(batch.out[k], soft.encrypt(tweak, batch.in[k])) << sizes[k] << " bytes";
    }
  }
  EXPECT_EQ(bed.driver->partial_blocks.load(), 0);
}

// The dispatcher tests lengths against the multiple with a mask: a driver
// that declares another kind of multiple is disabled, with the reason.
TEST(Dispatch, AnInputMultipleThatIsNoPowerOfTwoDisablesTheAlgorithm) {
  FrameworkOptions options;
  options.drivers.push_back(std::make_unique<WholeBlockXtsDriver>(24));
  Framework framework(std::move(options));
  for (const DriverInfo& d : framework.drivers()) {
    if (d.name != "blocks") continue;
    ASSERT_EQ(d.self_tests.size(), 1u);
    EXPECT_FALSE(d.self_tests[0].passed);
    EXPECT_NE(d.self_tests[0].detail.find("not a power of two"), std::string::npos)
        << d.self_tests[0].detail;
    return;
  }
  FAIL() << "driver 'blocks' not registered";
}

TEST(Dispatch, DriverFailureFallsBackWithTheRightAnswer) {
  Bed bed(Policy::offload);
  const ByteVector key = random_bytes(16), iv = random_bytes(16), pt = random_bytes(64);
  CipherSession reference("aes-128-cbc", key, bed.options("soft"));
  const ByteVector expected = reference.encrypt(iv, pt);
  {
    bed.control.behaviour = Behaviour::fail_requests;
    CipherSession s("aes-128-cbc", key, bed.options());
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(s.encrypt(iv, pt), expected);
      EXPECT_EQ(s.last_driver(), "soft");
    }
  }  // counters are published when the session ends
  const auto usage = bed.framework->usage();
  ASSERT_NE(find_usage(usage, "accel"), nullptr);
  // Three failures in a row quarantine it (FrameworkOptions): the last two
  // requests went straight to soft.
  EXPECT_EQ(find_usage(usage, "accel")->failures, 3u);
  EXPECT_EQ(find_usage(usage, "accel")->requests, 0u);
  ASSERT_NE(find_usage(usage, "soft"), nullptr);
  EXPECT_GE(find_usage(usage, "soft")->requests, 5u);
}

TEST(Dispatch, FailedInPlaceRequestIsNotRetriedOnClobberedInput) {
  Bed bed(Policy::offload);
  bed.control.behaviour = Behaviour::fail_requests;
  CipherSession s("aes-128-cbc", random_bytes(16), bed.options());
  ByteVector buffer = random_bytes(64);
  EXPECT_THROW(s.encrypt(random_bytes(16), buffer, buffer), DriverFailure);
}

TEST(Dispatch, PinnedDriverIsNeverSwappedSilently) {
  Bed bed(Policy::fastest);
  bed.control.behaviour = Behaviour::fail_requests;
  CipherSession s("aes-128-cbc", random_bytes(16), bed.options("accel"));
  try {
    s.encrypt(random_bytes(16), random_bytes(32));
    FAIL() << "a pinned driver's failure was hidden";
  } catch (const DriverFailure& e) {
    EXPECT_NE(std::string(e.what()).find("accel"), std::string::npos) << e.what();
  }
  // A request the pinned driver cannot take is refused, not rerouted.
  bed.control.behaviour = Behaviour::correct;
  EXPECT_THROW(s.encrypt(random_bytes(16), random_bytes(8192)), Unsupported);
  // An algorithm the pinned driver lacks.
  EXPECT_THROW(CipherSession("aes-256-cbc", random_bytes(32), bed.options("accel")), Unsupported);
}

TEST(Dispatch, NullDriverOnlyWhenPinned) {
  CipherSession automatic("aes-128-cbc", random_bytes(16));
  automatic.encrypt(random_bytes(16), random_bytes(32));
  EXPECT_EQ(automatic.last_driver(), "soft");

  CipherSession null("aes-128-cbc", random_bytes(16), {.driver = "null"});
  const ByteVector pt = random_bytes(32);
  ByteVector out = pt;
  null.encrypt(random_bytes(16), out, out);
  EXPECT_EQ(null.last_driver(), "null");
  EXPECT_EQ(out, pt);  // no cryptography was done
  DigestSession digest("sha256", {.driver = "null"});
  digest.update(pt);
  EXPECT_EQ(digest.final().size(), 32u);
}

TEST(Dispatch, UsageCountsRequestsAndBytesPerDriver) {
  Framework framework(FrameworkOptions{});
  {
    CipherSession s("aes-128-ctr", random_bytes(16), {.framework = &framework});
    for (int i = 0; i < 3000; ++i) s.encrypt(ByteVector(16), ByteVector(100));
    DigestSession d("sha256", {.framework = &framework});
    d.update(ByteVector(10));
    d.update(ByteVector(20));
    (void)d.final();
  }
  std::uint64_t ctr = 0, sha = 0, sha_bytes = 0;
  for (const auto& u : framework.usage()) {
    if (u.driver != "soft") continue;
    if (u.algorithm == AlgorithmId::aes_128_ctr) ctr = u.requests;
    if (u.algorithm == AlgorithmId::sha256) sha = u.requests, sha_bytes = u.bytes;
  }
  EXPECT_EQ(ctr, 3000u);
  EXPECT_EQ(sha, 1u);
  EXPECT_EQ(sha_bytes, 30u);
}

TEST(Policy, ParsesNamesAndRejectsOthers) {
  EXPECT_EQ(parse_policy("offload"), Policy::offload);
  EXPECT_EQ(to_string(Policy::software), "software");
  EXPECT_THROW(parse_policy("cheapest"), InvalidArgument);
}

// sole_driver(): what the provider's direct path asks before it hands an
// algorithm to OpenSSL's own implementation (docs/provider.md, "Speed").
TEST(SoleDriver, OnlyWhenOneDriverServesEveryRequest) {
  const Algorithm& cbc = algorithm(AlgorithmId::aes_128_cbc);
  const Algorithm& sha = algorithm(AlgorithmId::sha256);
  Bed fastest(Policy::fastest);  // no profile: soft first at every size
  EXPECT_EQ(sole_driver(cbc, fastest.options()), "soft");
  EXPECT_EQ(sole_driver(sha, fastest.options()), "soft");
  Bed offload(Policy::offload);  // the device first, but only up to 4096 bytes
  EXPECT_EQ(sole_driver(cbc, offload.options()), "");
  EXPECT_EQ(sole_driver(sha, offload.options()), "soft");  // the device has no SHA-256
  // A preference: its first driver that offers the algorithm.
  EXPECT_EQ(sole_driver(cbc, fastest.options("soft")), "soft");
  EXPECT_EQ(sole_driver(cbc, fastest.options("accel")), "");  // refuses large requests
  SessionOptions falls_back = fastest.options("accel");
  falls_back.fall_back = true;
  EXPECT_EQ(sole_driver(sha, falls_back), "soft");
  SessionOptions strict = fastest.options("accel");
  EXPECT_EQ(sole_driver(sha, strict), "");  // sessions fail: nothing to hand over
  EXPECT_EQ(sole_driver(cbc, fastest.options("no-such-driver")), "");
}

}  // namespace
}  // namespace cryptoaccel
