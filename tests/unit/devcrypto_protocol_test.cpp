// The devcrypto server's ioctl protocol, driven as the kernel's CUSE would
// drive it (devcrypto_kernel_sim.hpp): known answers through the ABI,
// cryptodev-linux's errno for each bad request, the retry rounds, the
// session bound and the ABI facts.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cerrno>
#include <memory>

#include "abi/cryptodev.hpp"
#include "devcrypto/protocol.hpp"
#include "devcrypto_kernel_sim.hpp"
#include "sp800_38a_cbc.hpp"
#include "test_util.hpp"

namespace cryptoaccel::test {
namespace {

using namespace cryptodev;

class DevcryptoProtocol : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    framework_ = std::make_unique<Framework>(FrameworkOptions{.excluded_families = {"cryptodev"}});
  }
  static void TearDownTestSuite() { framework_.reset(); }

  devcrypto::Service service_{*framework_, {.driver = "soft", .max_sessions = 4}};
  devcrypto::ServerQuota quota_{{.open_files = 16, .sessions = 4096, .user_share = 1}};
  devcrypto::Client client_{quota_, 1000};

  int ioctl(unsigned long cmd, void* arg, int* rounds = nullptr) {
    const SimulatedIoctl run = simulate_ioctl(service_, client_, cmd, arg);
    if (rounds != nullptr) *rounds = run.rounds;
    return run.result;
  }

  std::uint32_t open_cipher(std::uint32_t cipher, const ByteVector& key) {
    SessionOp op{};
    op.cipher = cipher;
    op.keylen = static_cast<std::uint32_t>(key.size());
    op.key = address(key.data());
    EXPECT_EQ(ioctl(kCiocGSession, &op), 0);
    return op.ses;
  }
  std::uint32_t open_mac(std::uint32_t mac, const ByteVector& key = {}) {
    SessionOp op{};
    op.mac = mac;
    op.mackeylen = static_cast<std::uint32_t>(key.size());
    op.mackey = key.empty() ? 0 : address(key.data());
    EXPECT_EQ(ioctl(kCiocGSession, &op), 0);
    return op.ses;
  }
  static std::uint64_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

  static std::unique_ptr<Framework> framework_;
};

std::unique_ptr<Framework> DevcryptoProtocol::framework_;

TEST_F(DevcryptoProtocol, AbiFactsMatchTheDocumentedValues) {
  EXPECT_EQ(kCiocGSession, 0xc0306366UL);
  EXPECT_EQ(kCiocCrypt, 0xc0306368UL);
  EXPECT_EQ(kCiocAuthCrypt, 0xc048636dUL);
  EXPECT_EQ(sizeof(SessionInfoOp), 268u);
  for (const Algorithm& a : algorithms()) {
    const auto ids = ids_of(a.id);
    if (a.id == AlgorithmId::chacha20 || a.id == AlgorithmId::chacha20_poly1305 ||
        a.kind == AlgorithmKind::public_key) {
      EXPECT_FALSE(ids) << "the ABI has no id for " << a.name;
      continue;
    }
    ASSERT_TRUE(ids) << a.name;
    const auto back =
        algorithm_of(ids->cipher, static_cast<std::uint32_t>(a.key_size.min), ids->mac);
    ASSERT_TRUE(back) << a.name;
    EXPECT_EQ(*back, a.id) << a.name;
  }
  EXPECT_EQ(algorithm_of(kAesCbc, 17, 0), std::nullopt);
  EXPECT_EQ(algorithm_of(999, 16, 0), std::nullopt);
}

TEST_F(DevcryptoProtocol, CbcKnownAnswerInThreeRounds) {
  const std::uint32_t ses = open_cipher(kAesCbc, Sp80038aCbc::key);
  ASSERT_NE(ses, 0u);
  ByteVector out(Sp80038aCbc::plain.size()), iv = Sp80038aCbc::iv;
  CryptOp op{.ses = ses, .op = kEncrypt, .len = 32};
  op.src = address(Sp80038aCbc::plain.data());
  op.dst = address(out.data());
  op.iv = address(iv.data());
  int rounds = 0;
  ASSERT_EQ(ioctl(kCiocCrypt, &op, &rounds), 0);
  EXPECT_EQ(rounds, 3) << "nothing, the struct, then the struct with its buffers";
  EXPECT_EQ(out, Sp80038aCbc::cipher);

  // In place, decrypting.
  op.op = kDecrypt;
  op.src = op.dst;
  ASSERT_EQ(ioctl(kCiocCrypt, &op), 0);
  EXPECT_EQ(out, Sp80038aCbc::plain);
}

TEST_F(DevcryptoProtocol, CbcWithoutAnIvContinuesTheChainAndWriteIvReturnsIt) {
  const std::uint32_t ses = open_cipher(kAesCbc, Sp80038aCbc::key);
  ByteVector out(32), iv = Sp80038aCbc::iv;
  CryptOp op{.ses = ses, .op = kEncrypt, .flags = kFlagWriteIv, .len = 16};
  op.src = address(Sp80038aCbc::plain.data());
  op.dst = address(out.data());
  op.iv = address(iv.data());
  ASSERT_EQ(ioctl(kCiocCrypt, &op), 0);
  EXPECT_EQ(iv, ByteVector(Sp80038aCbc::cipher.begin(), Sp80038aCbc::cipher.begin() + 16))
      << "COP_FLAG_WRITE_IV";
  op.flags = 0;
  op.iv = 0;
  op.src = address(Sp80038aCbc::plain.data() + 16);
  op.dst = address(out.data() + 16);
  ASSERT_EQ(ioctl(kCiocCrypt, &op), 0);
  EXPECT_EQ(out, Sp80038aCbc::cipher);
}

TEST_F(DevcryptoProtocol, Sha256OneShotAndStreamed) {
  const std::uint32_t ses = open_mac(kSha256);
  const ByteVector abc = {'a', 'b', 'c'};
  const ByteVector expected =
      hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  ByteVector mac(32);
  CryptOp op{.ses = ses, .op = kEncrypt, .len = 3};
  op.src = address(abc.data());
  op.mac = address(mac.data());
  ASSERT_EQ(ioctl(kCiocCrypt, &op), 0);
  EXPECT_EQ(mac, expected);

  std::fill(mac.begin(), mac.end(), 0);
  for (std::size_t i = 0; i < 3; ++i) {
    CryptOp piece{.ses = ses, .op = kEncrypt, .flags = kFlagUpdate, .len = 1};
    piece.src = address(abc.data() + i);
    ASSERT_EQ(ioctl(kCiocCrypt, &piece), 0);
  }
  CryptOp last{.ses = ses, .op = kEncrypt, .flags = kFlagFinal, .len = 0};
  last.mac = address(mac.data());
  ASSERT_EQ(ioctl(kCiocCrypt, &last), 0);
  EXPECT_EQ(mac, expected);
}

TEST_F(DevcryptoProtocol, HmacSha256Rfc4231Case2) {
  const ByteVector key = {'J', 'e', 'f', 'e'};
  const std::string data = "what do ya want for nothing?";
  const std::uint32_t ses = open_mac(kSha256Hmac, key);
  ByteVector mac(32);
  CryptOp op{.ses = ses, .op = kEncrypt, .len = static_cast<std::uint32_t>(data.size())};
  op.src = address(data.data());
  op.mac = address(mac.data());
  ASSERT_EQ(ioctl(kCiocCrypt, &op), 0);
  EXPECT_EQ(mac, hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
}

TEST_F(DevcryptoProtocol, GcmSealOpenAndForgery) {
  // The GCM test case 3 of the original GCM paper (AES-128, 64-byte text, no AAD).
  const ByteVector key = hex("feffe9928665731c6d6a8f9467308308");
  const ByteVector iv = hex("cafebabefacedbaddecaf888");
  const ByteVector plain =
      hex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e24"
          "49a6b525"
          "b16aedf5aa0de657ba637b391aafd255");
  const ByteVector expected =
      hex("42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5a"
          "ac84aa05"
          "1ba30b396a0aac973d58e091473f59854d5c2af327cd64a62cf35abd2ba6fab4");
  const std::uint32_t ses = open_cipher(kAesGcm, key);
  ByteVector sealed(plain.size() + 16);
  CryptAuthOp op{.ses = ses, .op = kEncrypt, .len = static_cast<std::uint32_t>(plain.size())};
  op.src = address(plain.data());
  op.dst = address(sealed.data());
  op.iv = address(iv.data());
  op.iv_len = 12;
  ASSERT_EQ(ioctl(kCiocAuthCrypt, &op), 0);
  EXPECT_EQ(sealed, expected);
  EXPECT_EQ(op.len, plain.size() + 16) << "the output length comes back in len";
  EXPECT_EQ(op.tag, op.dst + plain.size());

  ByteVector opened(plain.size());
  CryptAuthOp open{.ses = ses, .op = kDecrypt, .len = static_cast<std::uint32_t>(sealed.size())};
  open.src = address(sealed.data());
  open.dst = address(opened.data());
  open.iv = address(iv.data());
  ASSERT_EQ(ioctl(kCiocAuthCrypt, &open), 0);
  EXPECT_EQ(opened, plain);
  EXPECT_EQ(open.len, plain.size());

  sealed.back() ^= 1;
  std::fill(opened.begin(), opened.end(), 0);
  open.len = static_cast<std::uint32_t>(sealed.size());
  EXPECT_EQ(ioctl(kCiocAuthCrypt, &open), -EBADMSG);
  EXPECT_EQ(opened, ByteVector(plain.size(), 0)) << "no plaintext is released";
}

TEST_F(DevcryptoProtocol, SessionInfoNamesTheServer) {
  const std::uint32_t ses = open_cipher(kAesCbc, Sp80038aCbc::key);
  SessionInfoOp info{};
  info.ses = ses;
  int rounds = 0;
  ASSERT_EQ(ioctl(kCiocGSessInfo, &info, &rounds), 0);
  EXPECT_EQ(rounds, 2);
  EXPECT_STREQ(info.cipher_info.cra_name, "cbc(aes)");
  EXPECT_STREQ(info.cipher_info.cra_driver_name, "cryptoaccel:soft");
  EXPECT_EQ(info.flags & kSessionInfoHardware, 0u) << "soft is software";
}

TEST_F(DevcryptoProtocol, BadRequestsGetCryptodevLinuxErrno) {
  SessionOp unknown{.cipher = 999};
  EXPECT_EQ(ioctl(kCiocGSession, &unknown), -EINVAL) << "unknown algorithm";
  const ByteVector key17(17, 1);
  SessionOp wrong_key{.cipher = kAesCbc, .keylen = 17};
  wrong_key.key = address(key17.data());
  EXPECT_EQ(ioctl(kCiocGSession, &wrong_key), -EINVAL) << "wrong key length";
  SessionOp huge_key{.cipher = kAesCbc, .keylen = 1u << 30};
  huge_key.key = address(key17.data());
  EXPECT_EQ(ioctl(kCiocGSession, &huge_key), -EINVAL) << "a key above 64 bytes is never fetched";
  SessionOp none{};
  EXPECT_EQ(ioctl(kCiocGSession, &none), -EINVAL) << "neither cipher nor mac";

  ByteVector buffer(64);
  CryptOp bad_session{.ses = 12345, .op = kEncrypt, .len = 16};
  bad_session.src = bad_session.dst = address(buffer.data());
  EXPECT_EQ(ioctl(kCiocCrypt, &bad_session), -EINVAL) << "unknown session";
  std::uint32_t bad_id = 12345;
  EXPECT_EQ(ioctl(kCiocFSession, &bad_id), -ENOENT);

  const std::uint32_t ses = open_cipher(kAesCbc, Sp80038aCbc::key);
  CryptOp partial{.ses = ses, .op = kEncrypt, .len = 15};
  partial.src = partial.dst = address(buffer.data());
  EXPECT_EQ(ioctl(kCiocCrypt, &partial), -EINVAL) << "not a multiple of the block";
  CryptOp bad_op{.ses = ses, .op = 7, .len = 16};
  bad_op.src = bad_op.dst = address(buffer.data());
  EXPECT_EQ(ioctl(kCiocCrypt, &bad_op), -EINVAL) << "neither encrypt nor decrypt";
  CryptOp null_src{.ses = ses, .op = kEncrypt, .len = 16};
  EXPECT_EQ(ioctl(kCiocCrypt, &null_src), -EINVAL) << "a null buffer with a length, as the module";
  CryptOp too_long{.ses = ses, .op = kEncrypt, .len = (1u << 20) + 16};
  too_long.src = too_long.dst = address(buffer.data());
  EXPECT_EQ(ioctl(kCiocCrypt, &too_long), -EMSGSIZE) << "above the server's 1 MiB";

  int dummy = 0;
  EXPECT_EQ(ioctl(0xc0046399UL, &dummy), -EINVAL) << "unknown ioctl number";
}

TEST_F(DevcryptoProtocol, LenBeyondTheBufferFaultsInTheCopy) {
  // Two pages, the second inaccessible: a len running into it cannot be copied.
  const long page = sysconf(_SC_PAGESIZE);
  void* map = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  ASSERT_EQ(mprotect(static_cast<char*>(map) + page, page, PROT_NONE), 0);
  std::uint8_t* tail = static_cast<std::uint8_t*>(map) + page - 32;
  const std::uint32_t ses = open_cipher(kAesCbc, Sp80038aCbc::key);
  ByteVector iv(16);
  CryptOp op{.ses = ses, .op = kEncrypt, .len = 4096};
  op.src = op.dst = address(tail);
  op.iv = address(iv.data());
  EXPECT_EQ(ioctl(kCiocCrypt, &op), -EFAULT);
  op.len = 32;
  EXPECT_EQ(ioctl(kCiocCrypt, &op), 0) << "the session still serves";
  munmap(map, 2 * page);
}

TEST_F(DevcryptoProtocol, SessionsPerClientAreBoundedAndFreed) {
  std::uint32_t ids[4];
  for (auto& id : ids) id = open_cipher(kAesCbc, Sp80038aCbc::key);
  SessionOp fifth{.cipher = kAesCbc, .keylen = 16};
  fifth.key = address(Sp80038aCbc::key.data());
  EXPECT_EQ(ioctl(kCiocGSession, &fifth), -ENOSPC);
  EXPECT_EQ(ioctl(kCiocFSession, &ids[0]), 0);
  EXPECT_EQ(ioctl(kCiocGSession, &fifth), 0) << "a freed session makes room";
  EXPECT_EQ(client_.size(), 4u);
}

TEST_F(DevcryptoProtocol, AStructChangedBetweenRoundsIsRefused) {
  const std::uint32_t ses = open_cipher(kAesCbc, Sp80038aCbc::key);
  ByteVector data(32), iv(16);
  CryptOp op{.ses = ses, .op = kEncrypt, .len = 16};
  op.src = op.dst = address(data.data());
  op.iv = address(iv.data());
  const auto arg = address(&op);
  auto r = devcrypto::handle_ioctl(service_, client_, {.cmd = kCiocCrypt, .arg = arg});
  ASSERT_EQ(r.kind, devcrypto::IoctlReply::Kind::retry);
  std::vector<std::uint8_t> in(sizeof op);
  std::memcpy(in.data(), &op, sizeof op);
  r = devcrypto::handle_ioctl(service_, client_, {.cmd = kCiocCrypt, .arg = arg, .in = in});
  ASSERT_EQ(r.kind, devcrypto::IoctlReply::Kind::retry);
  std::size_t out_size = 0;
  for (const auto& v : r.out_iov) out_size += v.len;
  // Round 3 brings a struct whose len grew after round 2 planned the copy.
  CryptOp changed = op;
  changed.len = 32;
  in.assign(sizeof op + 16 + 16, 0);
  std::memcpy(in.data(), &changed, sizeof changed);
  r = devcrypto::handle_ioctl(service_, client_,
                              {.cmd = kCiocCrypt, .arg = arg, .in = in, .out_size = out_size});
  ASSERT_EQ(r.kind, devcrypto::IoctlReply::Kind::error);
  EXPECT_EQ(r.error, EINVAL);
}

}  // namespace
}  // namespace cryptoaccel::test
