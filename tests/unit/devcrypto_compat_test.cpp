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


// ---- Hostile requests (adv-compat32) ----------------------------------------
// Each test below states what the docs promise ("an i386 program gets from
// it exactly the answers a 64-bit one gets", a request queued in one layout
// fetched in the other) for a request a hostile or unlucky client makes.

// A 64-bit program queues a request whose buffers lie above 4 GiB (where a
// 64-bit program's heap is); a 32-bit program fetches it through the same
// file (passed to it, or the same process through int 0x80). The server
// writes a fetched request's output through the fetch, to the addresses it
// was submitted with, which the kernel refuses a compat caller: the fetch
// fails with EFAULT and the request is over, as a module's fetch that
// cannot copy out (docs/devcrypto.md). Nothing is left stranded: no thread
// finds it again, and its queue slot is free.
TEST_F(DevcryptoCompat, HostileFetchIn32BitOfRequestQueuedAbove4GiB) {
  const std::uint32_t ses = open32(kAesCbc, Sp80038aCbc::key);
  std::vector<std::uint8_t> high_src(Sp80038aCbc::plain.begin(), Sp80038aCbc::plain.end());
  std::vector<std::uint8_t> high_dst(32), high_iv(Sp80038aCbc::iv.begin(), Sp80038aCbc::iv.end());
  if (reinterpret_cast<std::uintptr_t>(high_dst.data()) <= 0xffffffffu)
    GTEST_SKIP() << "the heap lies below 4 GiB here";
  L64::CryptOp* op = low_.place(L64::CryptOp{.ses = ses,
                                             .op = kEncrypt,
                                             .len = 32,
                                             .src = reinterpret_cast<std::uintptr_t>(high_src.data()),
                                             .dst = reinterpret_cast<std::uintptr_t>(high_dst.data()),
                                             .mac = 0,
                                             .iv = reinterpret_cast<std::uintptr_t>(high_iv.data())});
  // The submitter: thread 2 of a 64-bit program.
  ASSERT_EQ(simulate_ioctl(service_, client_, L64::kCiocAsyncCrypt, op, 2).result, 0);
  // The fetcher: thread 3 of a 32-bit program.
  L32::CryptOp* fetched = low_.place(L32::CryptOp{});
  EXPECT_EQ(simulate_ioctl(service_, client_, L32::kCiocAsyncFetch, fetched, 3, true,
                           /*layout32=*/true)
                .result,
            -EFAULT);
  L64::CryptOp* wide = low_.place(L64::CryptOp{});
  EXPECT_EQ(simulate_ioctl(service_, client_, L64::kCiocAsyncFetch, wide, 2).result, -EBUSY)
      << "the request is over: none is queued";
  EXPECT_EQ(simulate_ioctl(service_, client_, L32::kCiocAsyncFetch, fetched, 3, true, true).result,
            -EBUSY)
      << "the 32-bit thread holds no claim on it";
  EXPECT_EQ(high_dst, std::vector<std::uint8_t>(32)) << "nothing written";
}

// SRTP's src must lie at most 256 bytes into auth_src. A 32-bit program's
// src - auth_src is computed in 32 bits (protocol_authcrypt.cpp's
// plan_srtp), so a src just above 0 with auth_src just below 4 GiB passes
// as "192 bytes in", where the 64-bit layout (and the module, whose compat
// path widens the pointers first) refuses it with EINVAL. The kernel's
// copy then faults instead (EFAULT), or, for a program that maps memory
// past 4 GiB and calls through int 0x80, the server writes the output to a
// src that is not inside what auth_src declared.
TEST_F(DevcryptoCompat, HostileSrtpSrcWrappingBelowAuthSrc) {
  const ByteVector mac_key = hex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");
  const std::uint32_t narrow_ses = open32(kAesCtr, Sp80038aCbc::key, kSha1Hmac, mac_key);
  devcrypto::Client wide_client{quota_, 1000};
  L64::SessionOp* sop = low_.place(L64::SessionOp{.cipher = kAesCtr,
                                                  .mac = kSha1Hmac,
                                                  .keylen = 16,
                                                  .key = low_.put(Sp80038aCbc::key),
                                                  .mackeylen = 20,
                                                  .mackey = low_.put(mac_key)});
  ASSERT_EQ(ioctl64(L64::kCiocGSession, sop, &wide_client), 0);
  const std::uint32_t auth_src = 0xffffff80u, src = 0x40;  // src - auth_src = 0xc0 in 32 bits
  const std::uint32_t tag = low_.reserve(20), iv = low_.put(Sp80038aCbc::iv);
  // The same request in either layout: one SRTP seal over auth_src.
  const auto request = [&]<class Op>(Op, std::uint32_t ses) {
    return low_.place(Op{.ses = ses,
                         .op = kEncrypt,
                         .flags = kFlagAeadSrtp,
                         .len = 32,
                         .auth_len = 256,
                         .auth_src = auth_src,
                         .src = src,
                         .dst = src,
                         .tag = tag,
                         .tag_len = 10,
                         .iv = iv,
                         .iv_len = 16});
  };
  L32::CryptAuthOp* narrow = request(L32::CryptAuthOp{}, narrow_ses);
  L64::CryptAuthOp* wide = request(L64::CryptAuthOp{}, sop->ses);
  const int b = ioctl64(L64::kCiocAuthCrypt, wide, &wide_client);
  ASSERT_EQ(b, -EINVAL) << "src below auth_src";
  EXPECT_EQ(ioctl32(L32::kCiocAuthCrypt, narrow), b)
      << "the same request from a 32-bit program: src - auth_src wraps to 192";
}

// A request a 32-bit program queues fits a round (28-byte struct + 131,044
// bytes of output = 128 KiB), but a 64-bit fetch of it through the same
// file would need 20 bytes more than a round (its struct is 48 bytes). The
// submission is judged by the larger struct: where the server may not
// reach the caller's memory (another pid namespace, a non-dumpable caller)
// it is refused at once with EMSGSIZE, as the same request from a 64-bit
// program, rather than queued and lost at a fetch; where it may, the
// output goes through the caller's memory and a fetch of either layout
// delivers it.
TEST_F(DevcryptoCompat, HostileAsyncFetchOfTheOtherLayoutCrossesTheRoundBound) {
  const ByteVector mac_key = hex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");
  const std::uint32_t ses = open32(kAesCbc, Sp80038aCbc::key, kSha1Hmac, mac_key);
  constexpr std::uint32_t kLen = 131008;  // + 16 IV back + 20 MAC = 131,044 output bytes
  const std::uint32_t src = low_.put(ByteVector(kLen, 0x5a)), dst = low_.reserve(kLen);
  L32::CryptOp* op = low_.place(L32::CryptOp{.ses = ses,
                                             .op = kEncrypt,
                                             .flags = kFlagWriteIv,
                                             .len = kLen,
                                             .src = src,
                                             .dst = dst,
                                             .mac = low_.reserve(20),
                                             .iv = low_.put(Sp80038aCbc::iv)});
  // An unprivileged view: the server may not reach the caller's memory.
  EXPECT_EQ(simulate_ioctl(service_, client_, L32::kCiocAsyncCrypt, op, 1, false, true).result,
            -EMSGSIZE);
  // The server may reach it: queued, and fetched in the other layout.
  ASSERT_EQ(simulate_ioctl(service_, client_, L32::kCiocAsyncCrypt, op, 1, true, true).result, 0);
  L64::CryptOp* wide = low_.place(L64::CryptOp{});
  EXPECT_EQ(simulate_ioctl(service_, client_, L64::kCiocAsyncFetch, wide, 2, true).result, 0)
      << "a fetch of a queued, done request";
  EXPECT_NE(low_.get(dst, 16), ByteVector(16, 0)) << "its output";
}

// Edge values of the 32-bit fields, each request also made by a 64-bit
// program with the same (zero-extended) values: the answers must be equal.
TEST_F(DevcryptoCompat, HostileEdgeValuesAreAnsweredAlikeInBothLayouts) {
  const ByteVector mac_key = hex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");
  devcrypto::Client wide_client{quota_, 1000};
  struct Kind {
    std::uint32_t cipher, mac;
    ByteVector key, mac_key;
  };
  const std::vector<Kind> kinds = {{kAesCbc, 0, Sp80038aCbc::key, {}},
                                   {kAesCtr, kSha1Hmac, Sp80038aCbc::key, mac_key},
                                   {kAesCbc, kSha1Hmac, Sp80038aCbc::key, mac_key},
                                   {kAesGcm, 0, Sp80038aCbc::key, {}},
                                   {0, kSha256, {}, {}}};
  std::vector<std::uint32_t> narrow_ids, wide_ids;
  for (const Kind& k : kinds) {
    narrow_ids.push_back(open32(k.cipher, k.key, k.mac, k.mac_key));
    L64::SessionOp* op = low_.place(L64::SessionOp{});
    *op = {.cipher = k.cipher,
           .mac = k.mac,
           .keylen = static_cast<std::uint32_t>(k.key.size()),
           .key = k.key.empty() ? 0 : low_.put(k.key),
           .mackeylen = static_cast<std::uint32_t>(k.mac_key.size()),
           .mackey = k.mac_key.empty() ? 0 : low_.put(k.mac_key)};
    ASSERT_EQ(ioctl64(L64::kCiocGSession, op, &wide_client), 0);
    wide_ids.push_back(op->ses);
  }
  const std::size_t mark = 64 * 1024;
  // Buffers: a valid one (the same at every request), and edge pointers.
  low_.reset();
  const std::uint32_t buf = low_.reserve(mark);
  const std::uint32_t ptrs[] = {0, buf, buf + 1, 0xffffffffu, 0xfffffff0u, 0x80000000u, 0x10};
  const std::uint32_t lens[] = {0, 1, 16, 32, 0xffffffffu, 0x80000000u, 0xfffffff0u, 1u << 20,
                                (1u << 20) + 16};
  std::mt19937 rng(7);
  const auto pick = [&](const auto& table) { return table[rng() % std::size(table)]; };
  int compared = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::size_t k = rng() % kinds.size();
    const std::uint16_t flags =
        static_cast<std::uint16_t>(rng() % 3 == 0 ? rng() % 128 : (rng() % 2) * kFlagAeadSrtp);
    const std::uint16_t dir = static_cast<std::uint16_t>(rng() % 2);
    const std::uint32_t p[6] = {pick(ptrs), pick(ptrs), pick(ptrs), pick(ptrs), pick(ptrs),
                                pick(ptrs)};
    const std::uint32_t len = pick(lens), auth_len = pick(lens);
    const auto tag_len = static_cast<std::uint32_t>(rng() % 3 == 0 ? 0 : rng() % 40);
    const bool auth = rng() % 2 == 0;
    int a = 0, b = 0;
    if (auth) {
      L32::CryptAuthOp* n = low_.place(L32::CryptAuthOp{.ses = narrow_ids[k], .op = dir, .flags = flags,
          .len = len, .auth_len = auth_len, .auth_src = p[0], .src = p[1], .dst = p[2],
          .tag = p[3], .tag_len = tag_len, .iv = p[4], .iv_len = 12});
      L64::CryptAuthOp w{.ses = wide_ids[k], .op = dir, .flags = flags,
          .len = len, .auth_len = auth_len, .auth_src = p[0], .src = p[1], .dst = p[2],
          .tag = p[3], .tag_len = tag_len, .iv = p[4], .iv_len = 12};
      const ByteVector before = low_.get(buf, LowMemory::kSize);
      a = ioctl32(L32::kCiocAuthCrypt, n);
      std::memcpy(LowMemory::pointer(buf), before.data(), before.size());
      b = ioctl64(L64::kCiocAuthCrypt, &w, &wide_client);
    } else {
      L32::CryptOp* n = low_.place(L32::CryptOp{.ses = narrow_ids[k], .op = dir, .flags = flags,
          .len = len, .src = p[0], .dst = p[1], .mac = p[2], .iv = p[3]});
      L64::CryptOp w{.ses = wide_ids[k], .op = dir, .flags = flags,
          .len = len, .src = p[0], .dst = p[1], .mac = p[2], .iv = p[3]};
      // The 64-bit request sees the memory the 32-bit one saw (its output
      // may cover everything, the 32-bit struct too): its struct lies above
      // 4 GiB, the rest is put back.
      const ByteVector before = low_.get(buf, LowMemory::kSize);
      a = ioctl32(L32::kCiocCrypt, n);
      std::memcpy(LowMemory::pointer(buf), before.data(), before.size());
      b = ioctl64(L64::kCiocCrypt, &w, &wide_client);
    }
    low_.reset();
    low_.reserve(mark);  // keep `buf` where it was
    EXPECT_EQ(a, b) << "request " << i << (auth ? " CIOCAUTHCRYPT" : " CIOCCRYPT") << " kind "
                    << k << " flags " << flags << " op " << dir << " len " << len << " auth_len "
                    << auth_len << " tag_len " << tag_len << " pointers " << std::hex << p[0]
                    << " " << p[1] << " " << p[2] << " " << p[3] << " " << p[4];
    if (a != b && ++compared > 10) break;  // enough to show it
  }
}

// CIOCKEY's counts and crp_nbits at their edges, each in both layouts.
TEST_F(DevcryptoCompat, HostileKeyParametersAreAnsweredAlikeInBothLayouts) {
  const std::uint32_t num = low_.put(ByteVector(2048, 0x01));
  const std::uint32_t ptrs[] = {0, num, 0xffffffffu, 0xfffff000u};
  const std::uint32_t bits[] = {0, 1, 8, 9, 16384, 16385, 0xffffffffu, 0xfffffff9u};
  const std::uint16_t counts[] = {0, 1, 3, 6, 7, 8, 0xffff};
  std::mt19937 rng(11);
  const auto pick = [&](const auto& table) { return table[rng() % std::size(table)]; };
  for (int i = 0; i < 2000; ++i) {
    L32::CryptKop n{.crk_op = static_cast<std::uint32_t>(rng() % 6),
                    .crk_iparams = pick(counts),
                    .crk_oparams = pick(counts)};
    if (rng() % 2) n.crk_iparams = 3, n.crk_oparams = 1, n.crk_op = kKeyModExp;
    L64::CryptKop w{.crk_op = n.crk_op, .crk_iparams = n.crk_iparams, .crk_oparams = n.crk_oparams};
    for (std::size_t j = 0; j < L32::kMaxKeyParams; ++j) {
      n.crk_param[j] = {.crp_p = pick(ptrs),
                        .crp_nbits = rng() % 3 != 0 ? 16u : pick(bits)};
      w.crk_param[j] = {.crp_p = n.crk_param[j].crp_p, .crp_nbits = n.crk_param[j].crp_nbits};
    }
    const int a = ioctl32(L32::kCiocKey, low_.place(n));
    const int b = ioctl64(L64::kCiocKey, low_.place(w));
    ASSERT_EQ(a, b) << "request " << i << " op " << n.crk_op << " counts " << n.crk_iparams << "/"
                    << n.crk_oparams;
  }
}

// A session made in one layout, used and freed in the other; requests
// queued in both layouts left in flight when the file closes.
TEST_F(DevcryptoCompat, HostileSessionsAndQueuesAcrossLayouts) {
  auto other = std::make_unique<devcrypto::Client>(quota_, 5000);
  const std::uint32_t ses = open32(kAesCbc, Sp80038aCbc::key, 0, {}, other.get());
  const std::uint32_t dst = low_.reserve(64);
  L64::CryptOp* wide = low_.place(L64::CryptOp{.ses = ses, .op = kEncrypt, .len = 32,
      .src = low_.put(Sp80038aCbc::plain), .dst = dst, .mac = 0, .iv = low_.put(Sp80038aCbc::iv)});
  EXPECT_EQ(ioctl64(L64::kCiocCrypt, wide, other.get()), 0);
  EXPECT_EQ(low_.get(dst, 32), Sp80038aCbc::cipher);
  EXPECT_EQ(ioctl64(L64::kCiocCrypt, wide), -EINVAL) << "another file's session";
  L32::CryptOp narrow = relaid<L32, L64>(*wide);
  for (int i = 0; i < 70; ++i) {
    const int a = ioctl64(L64::kCiocAsyncCrypt, wide, other.get());
    const int b = simulate_ioctl(service_, *other, L32::kCiocAsyncCrypt, low_.place(narrow), 1,
                                 true, true).result;
    if (i < 32) {
      EXPECT_EQ(a, 0);
      EXPECT_EQ(b, 0);
    } else {
      EXPECT_EQ(a, -EBUSY);
      EXPECT_EQ(b, -EBUSY);
    }
  }
  // A fetch of the other size: the struct of the fetcher's layout.
  L32::CryptOp* f = low_.place(L32::CryptOp{});
  EXPECT_EQ(simulate_ioctl(service_, *other, L32::kCiocAsyncFetch, f, 7, true, true).result, 0);
  EXPECT_EQ(f->ses, ses);
  std::uint32_t* id = low_.place(ses);
  EXPECT_EQ(ioctl64(kCiocFSession, id, other.get()), 0) << "freed in the other layout";
  EXPECT_EQ(ioctl32(kCiocFSession, id, nullptr, other.get()), -ENOENT);
  other.reset();  // 63 requests in flight
  EXPECT_EQ(quota_.sessions(), 0u);
}


// Requests a 32-bit program queues on mb, where they wait for company
// (started), fetched by a 64-bit program, and others left waiting when the
// file closes.
TEST_F(DevcryptoCompat, HostileStartedRequestsAcrossLayoutsAndClose) {
  bool mb = false;
  for (const DriverInfo& d : framework_->drivers()) mb = mb || d.name == "mb";
  if (!mb) GTEST_SKIP() << "no mb driver in this build or on this CPU";
  devcrypto::Service service{*framework_, {.driver = "mb", .max_sessions = 8}};
  auto client = std::make_unique<devcrypto::Client>(quota_, 300);
  L32::SessionOp* sop = low_.place(
      L32::SessionOp{.cipher = kAesCbc, .keylen = 16, .key = low_.put(Sp80038aCbc::key)});
  ASSERT_EQ(simulate_ioctl(service, *client, L32::kCiocGSession, sop, 1, true, true).result, 0);
  std::vector<std::uint32_t> dsts;
  for (int i = 0; i < 40; ++i) {
    dsts.push_back(low_.reserve(32));
    L32::CryptOp* op = low_.place(L32::CryptOp{.ses = sop->ses,
                                               .op = kEncrypt,
                                               .len = 32,
                                               .src = low_.put(Sp80038aCbc::plain),
                                               .dst = dsts.back(),
                                               .mac = 0,
                                               .iv = low_.put(Sp80038aCbc::iv)});
    ASSERT_EQ(simulate_ioctl(service, *client, L32::kCiocAsyncCrypt, op, 1, true, true).result, 0);
  }
  for (int i = 0; i < 20; ++i) {
    L64::CryptOp* fetched = low_.place(L64::CryptOp{});
    ASSERT_EQ(simulate_ioctl(service, *client, L64::kCiocAsyncFetch, fetched, 2).result, 0);
    EXPECT_EQ(fetched->dst, std::uint64_t{dsts[static_cast<std::size_t>(i)]});
    EXPECT_EQ(low_.get(dsts[static_cast<std::size_t>(i)], 32), Sp80038aCbc::cipher);
  }
  // The session freed from the 64-bit side while 20 wait, then the file closes.
  std::uint32_t* id = low_.place(sop->ses);
  EXPECT_EQ(simulate_ioctl(service, *client, kCiocFSession, id, 2).result, 0);
  client.reset();
  EXPECT_EQ(quota_.sessions(), 0u);
}


// CIOCASYMFEAT called with an out_size the server did not ask for (found by
// the decoder fuzzer, tests/fuzz/findings/asymfeat-answer-longer-than-declared.bin):
// its 4 bytes go to any out_size but 0, more than the call declared. The
// kernel only ever declares 0 or the 4 the retry asked for (else EIO).
TEST_F(DevcryptoCompat, HostileAsymFeatAnswersNoMoreThanDeclared) {
  for (bool layout32 : {false, true})
    for (std::size_t out_size : {1u, 2u, 3u}) {
      const devcrypto::IoctlCall call{.cmd = static_cast<unsigned>(kCiocAsymFeat),
                                      .arg = 0x1000,
                                      .out_size = out_size,
                                      .caller = 1,
                                      .layout32 = layout32};
      const devcrypto::IoctlReply r = devcrypto::handle_ioctl(service_, client_, call);
      if (r.kind == devcrypto::IoctlReply::Kind::done) {
        EXPECT_LE(r.out.size(), out_size) << "layout32 " << layout32;
      }
    }
}

}  // namespace
}  // namespace cryptoaccel::test
