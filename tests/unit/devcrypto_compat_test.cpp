// The devcrypto server as a 32-bit program sees it: its structs laid out
// with 32-bit pointers (cryptodev::Layout32), their ioctl numbers, and the
// kernel's FUSE_IOCTL_32BIT on its calls, as cryptodev-linux's compat
// ioctls serve it. Known answers through every ioctl that holds a pointer,
// each layout's numbers unknown to the other, a request queued in one
// layout and fetched in the other, and random requests answered alike,
// byte for byte and errno for errno, in both layouts. The buffers and
// structs live below 4 GiB, where a 32-bit program's pointers point.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <random>

#include "abi/cryptodev.hpp"
#include "devcrypto/protocol.hpp"
#include "devcrypto_kernel_sim.hpp"
#include "sp800_38a_cbc.hpp"
#include "test_util.hpp"

namespace cryptoaccel::test {
namespace {

using namespace cryptodev;
using L32 = Layout32;
using L64 = Layout64;

// A bump allocator in one mapping below 4 GiB.
class LowMemory {
 public:
  static constexpr std::size_t kSize = 1 << 20;
  LowMemory() {
    for (std::uintptr_t hint = 0x20000000; hint < 0xf0000000 && base_ == nullptr;
         hint += 0x08000000) {
      void* p = ::mmap(reinterpret_cast<void*>(hint), kSize, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
      if (p == MAP_FAILED) continue;
      if (reinterpret_cast<std::uintptr_t>(p) + kSize > 0xffffffffu) {
        ::munmap(p, kSize);  // a kernel that took the hint as a hint only
        continue;
      }
      base_ = static_cast<std::uint8_t*>(p);
    }
  }
  ~LowMemory() {
    if (base_ != nullptr) ::munmap(base_, kSize);
  }
  LowMemory(const LowMemory&) = delete;
  LowMemory& operator=(const LowMemory&) = delete;

  bool usable() const { return base_ != nullptr; }
  void reset() { used_ = 0; }

  // `n` zero bytes, 16-aligned; their 32-bit address.
  std::uint32_t reserve(std::size_t n) {
    used_ = (used_ + 15) & ~std::size_t{15};
    if (used_ + n > kSize) throw std::length_error("LowMemory is full");
    std::memset(base_ + used_, 0, n);
    const auto at = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(base_ + used_));
    used_ += n;
    return at;
  }
  std::uint32_t put(const ByteVector& bytes) {
    const std::uint32_t at = reserve(bytes.size());
    if (!bytes.empty()) std::memcpy(pointer(at), bytes.data(), bytes.size());
    return at;
  }
  template <class T>
  T* place(const T& value) {
    T* p = static_cast<T*>(pointer(reserve(sizeof(T))));
    std::memcpy(static_cast<void*>(p), &value, sizeof(T));
    return p;
  }
  ByteVector get(std::uint32_t at, std::size_t n) const {
    const auto* p = static_cast<const std::uint8_t*>(pointer(at));
    return ByteVector(p, p + n);
  }
  static void* pointer(std::uint32_t at) { return reinterpret_cast<void*>(std::uintptr_t{at}); }

 private:
  std::uint8_t* base_ = nullptr;
  std::size_t used_ = 0;
};

class DevcryptoCompat : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    framework_ = std::make_unique<Framework>(FrameworkOptions{.excluded_families = {"cryptodev"}});
  }
  static void TearDownTestSuite() { framework_.reset(); }

  void SetUp() override {
    if (!low_.usable()) GTEST_SKIP() << "no memory could be mapped below 4 GiB";
  }

  devcrypto::Service service_{*framework_, {.driver = "soft", .max_sessions = 8}};
  devcrypto::ServerQuota quota_{{.open_files = 16, .sessions = 4096, .user_share = 1}};
  devcrypto::Client client_{quota_, 1000};
  LowMemory low_;

  int ioctl32(unsigned long cmd, void* arg, int* rounds = nullptr,
              devcrypto::Client* client = nullptr) {
    const SimulatedIoctl run = simulate_ioctl(service_, client != nullptr ? *client : client_, cmd,
                                              arg, 1, true, /*layout32=*/true);
    if (rounds != nullptr) *rounds = run.rounds;
    return run.result;
  }
  int ioctl64(unsigned long cmd, void* arg, devcrypto::Client* client = nullptr) {
    return simulate_ioctl(service_, client != nullptr ? *client : client_, cmd, arg).result;
  }

  std::uint32_t open32(std::uint32_t cipher, const ByteVector& key, std::uint32_t mac = 0,
                       const ByteVector& mac_key = {}, devcrypto::Client* client = nullptr) {
    L32::SessionOp* op = low_.place(L32::SessionOp{});
    op->cipher = cipher;
    op->keylen = static_cast<std::uint32_t>(key.size());
    op->key = key.empty() ? 0 : low_.put(key);
    op->mac = mac;
    op->mackeylen = static_cast<std::uint32_t>(mac_key.size());
    op->mackey = mac_key.empty() ? 0 : low_.put(mac_key);
    EXPECT_EQ(ioctl32(L32::kCiocGSession, op, nullptr, client), 0);
    return op->ses;
  }

  static std::unique_ptr<Framework> framework_;
};

std::unique_ptr<Framework> DevcryptoCompat::framework_;

TEST_F(DevcryptoCompat, SessionAndCbcKnownAnswerInThreeRounds) {
  const std::uint32_t ses = open32(kAesCbc, Sp80038aCbc::key);
  ASSERT_NE(ses, 0u);
  const std::uint32_t dst = low_.reserve(32);
  L32::CryptOp* op = low_.place(L32::CryptOp{.ses = ses,
                                             .op = kEncrypt,
                                             .flags = kFlagWriteIv,
                                             .len = 32,
                                             .src = low_.put(Sp80038aCbc::plain),
                                             .dst = dst,
                                             .mac = 0,
                                             .iv = low_.put(Sp80038aCbc::iv)});
  int rounds = 0;
  ASSERT_EQ(ioctl32(L32::kCiocCrypt, op, &rounds), 0);
  EXPECT_EQ(rounds, 3);
  EXPECT_EQ(low_.get(dst, 32), Sp80038aCbc::cipher);
  EXPECT_EQ(low_.get(op->iv, 16),
            ByteVector(Sp80038aCbc::cipher.begin() + 16, Sp80038aCbc::cipher.end()))
      << "COP_FLAG_WRITE_IV writes the IV through the 32-bit pointer";
  EXPECT_EQ(op->ses, ses) << "the struct goes back in its own layout";

  // The session ends through CIOCFSESSION, whose number both layouts share.
  std::uint32_t* id = low_.place(ses);
  EXPECT_EQ(ioctl32(kCiocFSession, id), 0);
  EXPECT_EQ(ioctl32(L32::kCiocCrypt, op), -EINVAL) << "an ended session";
}

TEST_F(DevcryptoCompat, HashAndSessionInfo) {
  const std::uint32_t ses = open32(0, {}, kSha256);
  const std::uint32_t mac = low_.reserve(32);
  L32::CryptOp* op = low_.place(L32::CryptOp{
      .ses = ses, .op = kEncrypt, .len = 3, .src = low_.put({'a', 'b', 'c'}), .mac = mac});
  ASSERT_EQ(ioctl32(L32::kCiocCrypt, op), 0);
  EXPECT_EQ(low_.get(mac, 32),
            hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
  SessionInfoOp* info = low_.place(SessionInfoOp{.ses = ses});
  ASSERT_EQ(ioctl32(kCiocGSessInfo, info), 0);
  EXPECT_STREQ(info->hash_info.cra_name, "sha256");
}

TEST_F(DevcryptoCompat, GcmSealAndOpenThroughCiocAuthCrypt) {
  // The GCM test case 3 of the original GCM paper (AES-128, 64-byte text, no AAD).
  const ByteVector key = hex("feffe9928665731c6d6a8f9467308308");
  const ByteVector iv = hex("cafebabefacedbaddecaf888");
  const ByteVector plain =
      hex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e24"
          "49a6b525b16aedf5aa0de657ba637b391aafd255");
  const ByteVector sealed_expected =
      hex("42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5a"
          "ac84aa051ba30b396a0aac973d58e091473f59854d5c2af327cd64a62cf35abd2ba6fab4");
  const std::uint32_t ses = open32(kAesGcm, key);
  const std::uint32_t sealed = low_.reserve(plain.size() + 16);
  L32::CryptAuthOp* op = low_.place(L32::CryptAuthOp{});
  *op = {.ses = ses, .op = kEncrypt, .len = static_cast<std::uint32_t>(plain.size())};
  op->src = low_.put(plain);
  op->dst = sealed;
  op->iv = low_.put(iv);
  op->iv_len = 12;
  ASSERT_EQ(ioctl32(L32::kCiocAuthCrypt, op), 0);
  EXPECT_EQ(low_.get(sealed, plain.size() + 16), sealed_expected);
  EXPECT_EQ(op->len, plain.size() + 16) << "the output length comes back in len";
  EXPECT_EQ(op->tag, sealed + plain.size()) << "and the tag's 32-bit address in tag";

  const std::uint32_t opened = low_.reserve(plain.size());
  L32::CryptAuthOp* open = low_.place(L32::CryptAuthOp{});
  *open = {.ses = ses, .op = kDecrypt, .len = static_cast<std::uint32_t>(plain.size() + 16)};
  open->src = sealed;
  open->dst = opened;
  open->iv = op->iv;
  ASSERT_EQ(ioctl32(L32::kCiocAuthCrypt, open), 0);
  EXPECT_EQ(low_.get(opened, plain.size()), plain);

  static_cast<std::uint8_t*>(LowMemory::pointer(sealed))[plain.size() + 15] ^= 1;
  open->len = static_cast<std::uint32_t>(plain.size() + 16);
  EXPECT_EQ(ioctl32(L32::kCiocAuthCrypt, open), -EBADMSG);
}

TEST_F(DevcryptoCompat, ModExpThroughCiocKey) {
  // 4^13 mod 497 = 445, each number little-endian in crp_nbits bits.
  const std::uint32_t result = low_.reserve(2);
  L32::CryptKop* op = low_.place(L32::CryptKop{});
  op->crk_op = kKeyModExp;
  op->crk_iparams = 3;
  op->crk_oparams = 1;
  op->crk_param[0] = {.crp_p = low_.put({0x04}), .crp_nbits = 3};
  op->crk_param[1] = {.crp_p = low_.put({0x0d}), .crp_nbits = 4};
  op->crk_param[2] = {.crp_p = low_.put({0xf1, 0x01}), .crp_nbits = 9};
  op->crk_param[3] = {.crp_p = result, .crp_nbits = 9};
  ASSERT_EQ(ioctl32(L32::kCiocKey, op), 0);
  EXPECT_EQ(low_.get(result, 2), ByteVector({0xbd, 0x01}));
  std::uint32_t* features = low_.place(std::uint32_t{0});
  ASSERT_EQ(ioctl32(kCiocAsymFeat, features), 0);
  EXPECT_EQ(*features, kFeatureModExp | kFeatureModExpCrt);
}

TEST_F(DevcryptoCompat, AsyncRequestsAreFetchedInTheFetchersLayout) {
  const std::uint32_t ses = open32(kAesCbc, Sp80038aCbc::key);
  const std::uint32_t dst = low_.reserve(32);
  L32::CryptOp* op = low_.place(L32::CryptOp{.ses = ses,
                                             .op = kEncrypt,
                                             .len = 32,
                                             .src = low_.put(Sp80038aCbc::plain),
                                             .dst = dst,
                                             .mac = 0,
                                             .iv = low_.put(Sp80038aCbc::iv)});
  ASSERT_EQ(ioctl32(L32::kCiocAsyncCrypt, op), 0);
  L32::CryptOp* fetched = low_.place(L32::CryptOp{});
  ASSERT_EQ(ioctl32(L32::kCiocAsyncFetch, fetched), 0);
  EXPECT_EQ(std::memcmp(fetched, op, sizeof *op), 0) << "the submitted struct, in its layout";
  EXPECT_EQ(low_.get(dst, 32), Sp80038aCbc::cipher);
  EXPECT_EQ(ioctl32(L32::kCiocAsyncFetch, fetched), -EBUSY) << "nothing left";

  // Queued by a 32-bit program, fetched through the same file by a 64-bit
  // one: the struct comes in the fetcher's layout.
  std::memset(LowMemory::pointer(dst), 0, 32);
  ASSERT_EQ(ioctl32(L32::kCiocAsyncCrypt, op), 0);
  L64::CryptOp* wide = low_.place(L64::CryptOp{});
  ASSERT_EQ(ioctl64(L64::kCiocAsyncFetch, wide), 0);
  EXPECT_EQ(wide->ses, ses);
  EXPECT_EQ(wide->len, 32u);
  EXPECT_EQ(wide->src, op->src);
  EXPECT_EQ(wide->dst, std::uint64_t{dst});
  EXPECT_EQ(wide->iv, op->iv);
  EXPECT_EQ(low_.get(dst, 32), Sp80038aCbc::cipher);
}

TEST_F(DevcryptoCompat, EachLayoutKnowsOnlyItsOwnNumbers) {
  const std::uint32_t ses = open32(kAesCbc, Sp80038aCbc::key);
  // The same bytes under the other layout's number: cryptodev-linux's
  // compat ioctl knows only the 32-bit numbers, its ioctl only the 64-bit.
  L32::CryptOp* op = low_.place(L32::CryptOp{.ses = ses,
                                             .op = kEncrypt,
                                             .len = 16,
                                             .src = low_.put(Sp80038aCbc::plain),
                                             .dst = low_.reserve(16),
                                             .mac = 0,
                                             .iv = low_.put(Sp80038aCbc::iv)});
  EXPECT_EQ(ioctl32(L64::kCiocCrypt, op), -EINVAL);
  EXPECT_EQ(ioctl32(L64::kCiocGSession, op), -EINVAL);
  EXPECT_EQ(ioctl32(L64::kCiocAuthCrypt, op), -EINVAL);
  EXPECT_EQ(ioctl32(L64::kCiocKey, op), -EINVAL);
  EXPECT_EQ(ioctl32(L64::kCiocAsyncCrypt, op), -EINVAL);
  EXPECT_EQ(ioctl64(L32::kCiocCrypt, op), -EINVAL);
  EXPECT_EQ(ioctl64(L32::kCiocGSession, op), -EINVAL);
  EXPECT_EQ(ioctl64(L32::kCiocKey, op), -EINVAL);
  EXPECT_EQ(ioctl32(L32::kCiocCrypt, op), 0);
}

// One random CIOCCRYPT request, the same in both layouts: its pointers (all
// below 4 GiB) and fields.
struct RandomCrypt {
  int session = 0;  // index into the sessions opened for both
  std::uint16_t op = 0, flags = 0;
  std::uint32_t len = 0;
  bool src = true, dst = true, mac = true, iv = true;
};

TEST_F(DevcryptoCompat, RandomRequestsAreAnsweredAlikeInBothLayouts) {
  // Two files of the same server, one per layout, with the same sessions.
  devcrypto::Client wide_client{quota_, 1000};
  struct Opened {
    std::uint32_t cipher, mac;
    ByteVector key, mac_key;
  };
  const std::vector<Opened> kinds = {{kAesCbc, 0, Sp80038aCbc::key, {}},
                                     {kAesCtr, 0, Sp80038aCbc::key, {}},
                                     {kAesEcb, 0, Sp80038aCbc::key, {}},
                                     {0, kSha256, {}, {}},
                                     {0, kSha1Hmac, {}, hex("0b0b0b0b0b0b0b0b")},
                                     {kAesCbc, kSha256Hmac, Sp80038aCbc::key, hex("4a656665")}};
  std::vector<std::uint32_t> narrow_ids, wide_ids;
  for (const Opened& k : kinds) {
    narrow_ids.push_back(open32(k.cipher, k.key, k.mac, k.mac_key));
    L64::SessionOp* op = low_.place(L64::SessionOp{});
    op->cipher = k.cipher;
    op->keylen = static_cast<std::uint32_t>(k.key.size());
    op->key = k.key.empty() ? 0 : low_.put(k.key);
    op->mac = k.mac;
    op->mackeylen = static_cast<std::uint32_t>(k.mac_key.size());
    op->mackey = k.mac_key.empty() ? 0 : low_.put(k.mac_key);
    ASSERT_EQ(ioctl64(L64::kCiocGSession, op, &wide_client), 0);
    wide_ids.push_back(op->ses);
  }
  std::mt19937 rng(41);
  const auto coin = [&](int in) { return std::uniform_int_distribution<int>(0, in - 1)(rng) == 0; };
  int successes = 0, failures = 0;
  for (int i = 0; i < 400; ++i) {
    low_.reset();
    RandomCrypt r;
    r.session = std::uniform_int_distribution<int>(0, static_cast<int>(kinds.size()) - 1)(rng);
    r.op = coin(12) ? 7 : static_cast<std::uint16_t>(coin(2) ? kEncrypt : kDecrypt);
    r.flags = static_cast<std::uint16_t>(std::uniform_int_distribution<int>(0, 127)(rng));
    if (coin(2)) r.flags = 0;
    r.len = coin(4) ? std::uniform_int_distribution<std::uint32_t>(0, 70)(rng)
                    : 16 * std::uniform_int_distribution<std::uint32_t>(0, 4)(rng);
    r.src = !coin(12);
    r.dst = !coin(12);
    r.mac = !coin(12);
    r.iv = !coin(3);
    ByteVector src(r.len), iv(16);
    for (auto& b : src) b = static_cast<std::uint8_t>(rng());
    for (auto& b : iv) b = static_cast<std::uint8_t>(rng());
    const std::uint32_t src_at = r.src ? low_.put(src) : 0;
    // Each layout its own output buffers and IV (written back), the same input.
    std::uint32_t out[2], mac[2], iv_at[2];
    for (int l = 0; l < 2; ++l) {
      out[l] = r.dst ? low_.reserve(r.len + 16) : 0;
      mac[l] = r.mac ? low_.reserve(64) : 0;
      iv_at[l] = r.iv ? low_.put(iv) : 0;
    }
    const auto s = static_cast<std::size_t>(r.session);
    L32::CryptOp* narrow = low_.place(L32::CryptOp{.ses = narrow_ids[s],
                                                   .op = r.op,
                                                   .flags = r.flags,
                                                   .len = r.len,
                                                   .src = src_at,
                                                   .dst = out[0],
                                                   .mac = mac[0],
                                                   .iv = iv_at[0]});
    L64::CryptOp* wide = low_.place(L64::CryptOp{.ses = wide_ids[s],
                                                 .op = r.op,
                                                 .flags = r.flags,
                                                 .len = r.len,
                                                 .src = src_at,
                                                 .dst = out[1],
                                                 .mac = mac[1],
                                                 .iv = iv_at[1]});
    const int a = ioctl32(L32::kCiocCrypt, narrow);
    const int b = ioctl64(L64::kCiocCrypt, wide, &wide_client);
    SCOPED_TRACE("request " + std::to_string(i) + ": session kind " + std::to_string(r.session) +
                 ", op " + std::to_string(r.op) + ", flags " + std::to_string(r.flags) + ", len " +
                 std::to_string(r.len));
    ASSERT_EQ(a, b);
    (a == 0 ? successes : failures) += 1;
    if (r.dst) {
      EXPECT_EQ(low_.get(out[0], r.len + 16), low_.get(out[1], r.len + 16));
    }
    if (r.mac) {
      EXPECT_EQ(low_.get(mac[0], 64), low_.get(mac[1], 64));
    }
    if (r.iv) {
      EXPECT_EQ(low_.get(iv_at[0], 16), low_.get(iv_at[1], 16));
    }
    EXPECT_EQ(narrow->len, wide->len);
    EXPECT_EQ(narrow->flags, wide->flags);
  }
  // Both kinds of answer were compared.
  EXPECT_GT(successes, 100);
  EXPECT_GT(failures, 30);
}

}  // namespace
}  // namespace cryptoaccel::test
