// The devcrypto server's cipher + HMAC sessions (CIOCCRYPT chaining,
// CIOCAUTHCRYPT's TLS and SRTP modes), the NULL cipher, the asynchronous
// interface, CIOCCPHASH, CIOCASYMFEAT and CRIOGET, driven as the kernel's
// CUSE would (devcrypto_kernel_sim.hpp). Expected bytes come from OpenSSL's
// libcrypto computing what cryptodev-linux's authenc.c and main.c define.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cerrno>
#include <memory>

#include "abi/cryptodev.hpp"
#include "devcrypto/protocol.hpp"
#include "devcrypto_fixture.hpp"
#include "devcrypto_kernel_sim.hpp"
#include "test_util.hpp"

namespace cryptoaccel::test {
namespace {

using namespace cryptodev;

ByteVector openssl_cipher(const EVP_CIPHER* cipher, const ByteVector& key, const ByteVector& iv,
                          const ByteVector& in, bool encrypt) {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  ByteVector out(in.size() + 32);
  int n = 0, tail = 0;
  EVP_CipherInit_ex(ctx, cipher, nullptr, key.data(), iv.empty() ? nullptr : iv.data(),
                    encrypt ? 1 : 0);
  EVP_CIPHER_CTX_set_padding(ctx, 0);
  EVP_CipherUpdate(ctx, out.data(), &n, in.data(), static_cast<int>(in.size()));
  EVP_CipherFinal_ex(ctx, out.data() + n, &tail);
  EVP_CIPHER_CTX_free(ctx);
  out.resize(static_cast<std::size_t>(n + tail));
  return out;
}

ByteVector openssl_hmac_sha1(const ByteVector& key, const ByteVector& a, const ByteVector& b) {
  ByteVector joined = a;
  joined.insert(joined.end(), b.begin(), b.end());
  ByteVector mac(20);
  unsigned len = 0;
  HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()), joined.data(), joined.size(),
       mac.data(), &len);
  return mac;
}

class DevcryptoModes : public DevcryptoServerTest {
 protected:
  int ioctl(unsigned long cmd, void* arg, std::uint32_t caller = 1) {
    return simulate_ioctl(service_, client_, cmd, arg, caller).result;
  }

  std::uint32_t open(std::uint32_t cipher, const ByteVector& key, std::uint32_t mac,
                     const ByteVector& mac_key) {
    SessionOp op{};
    op.cipher = cipher;
    op.keylen = static_cast<std::uint32_t>(key.size());
    op.key = key.empty() ? 0 : address(key.data());
    op.mac = mac;
    op.mackeylen = static_cast<std::uint32_t>(mac_key.size());
    op.mackey = mac_key.empty() ? 0 : address(mac_key.data());
    EXPECT_EQ(ioctl(kCiocGSession, &op), 0);
    return op.ses;
  }
};

const ByteVector kAesKey = hex("2b7e151628aed2a6abf7158809cf4f3c");
const ByteVector kIv = hex("000102030405060708090a0b0c0d0e0f");
const ByteVector kMacKey = hex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");

TEST_F(DevcryptoModes, CipherAndHmacInOneSessionHashBeforeEncryptingAndAfterDecrypting) {
  const std::uint32_t ses = open(kAesCbc, kAesKey, kSha1Hmac, kMacKey);
  const ByteVector plain = random_bytes(64);
  ByteVector cipher(64), mac(20), iv = kIv;
  CryptOp op{.ses = ses, .op = kEncrypt, .len = 64};
  op.src = address(plain.data());
  op.dst = address(cipher.data());
  op.mac = address(mac.data());
  op.iv = address(iv.data());
  ASSERT_EQ(ioctl(kCiocCrypt, &op), 0);
  EXPECT_EQ(cipher, openssl_cipher(EVP_aes_128_cbc(), kAesKey, kIv, plain, true));
  EXPECT_EQ(mac, openssl_hmac_sha1(kMacKey, plain, {})) << "the MAC of the plaintext";

  ByteVector back(64), mac2(20);
  CryptOp open_op{.ses = ses, .op = kDecrypt, .len = 64};
  open_op.src = address(cipher.data());
  open_op.dst = address(back.data());
  open_op.mac = address(mac2.data());
  open_op.iv = address(iv.data());
  ASSERT_EQ(ioctl(kCiocCrypt, &open_op), 0);
  EXPECT_EQ(back, plain);
  EXPECT_EQ(mac2, mac) << "decrypting hashes the plaintext too";

  SessionInfoOp info{};
  info.ses = ses;
  ASSERT_EQ(ioctl(kCiocGSessInfo, &info), 0);
  EXPECT_STREQ(info.cipher_info.cra_name, "cbc(aes)");
  EXPECT_STREQ(info.hash_info.cra_name, "hmac(sha1)");
}

TEST_F(DevcryptoModes, AGcmSessionIgnoresAMacAsTheModuleDoes) {
  SessionOp op{.cipher = kAesGcm, .mac = kSha1Hmac, .keylen = 16, .mackeylen = 20};
  op.key = address(kAesKey.data());
  op.mackey = address(kMacKey.data());
  EXPECT_EQ(ioctl(kCiocGSession, &op), -EINVAL) << "a mac key makes the GCM key composite";
  op.mackeylen = 0;
  ASSERT_EQ(ioctl(kCiocGSession, &op), 0);
  SessionInfoOp info{};
  info.ses = op.ses;
  ASSERT_EQ(ioctl(kCiocGSessInfo, &info), 0);
  EXPECT_STREQ(info.cipher_info.cra_name, "gcm(aes)");
  EXPECT_STREQ(info.hash_info.cra_name, "");
  SessionOp bad_mac = op;
  bad_mac.mac = 99;
  EXPECT_EQ(ioctl(kCiocGSession, &bad_mac), -EINVAL) << "the mac id is still checked";
}

TEST_F(DevcryptoModes, TlsTypeIsMacThenEncryptWithTlsPadding) {
  const std::uint32_t ses = open(kAesCbc, kAesKey, kSha1Hmac, kMacKey);
  const ByteVector aad = random_bytes(13), plain = random_bytes(37);
  // 37 + 20 = 57 bytes, padded to 64 with seven bytes of 6.
  ByteVector record(64);
  std::copy(plain.begin(), plain.end(), record.begin());
  ByteVector iv = kIv;
  CryptAuthOp op{.ses = ses, .op = kEncrypt, .flags = kFlagAeadTls, .len = 37, .auth_len = 13};
  op.auth_src = address(aad.data());
  op.src = op.dst = address(record.data());
  op.iv = address(iv.data());
  ASSERT_EQ(ioctl(kCiocAuthCrypt, &op), 0);
  EXPECT_EQ(op.len, 64u);
  ByteVector expected = plain;
  const ByteVector mac = openssl_hmac_sha1(kMacKey, aad, plain);
  expected.insert(expected.end(), mac.begin(), mac.end());
  expected.insert(expected.end(), 7, 6);
  EXPECT_EQ(record, openssl_cipher(EVP_aes_128_cbc(), kAesKey, kIv, expected, true));

  CryptAuthOp back{.ses = ses, .op = kDecrypt, .flags = kFlagAeadTls, .len = 64, .auth_len = 13};
  back.auth_src = address(aad.data());
  back.src = back.dst = address(record.data());
  back.iv = address(iv.data());
  const ByteVector sealed = record;
  ASSERT_EQ(ioctl(kCiocAuthCrypt, &back), 0);
  EXPECT_EQ(back.len, 37u) << "the plaintext's length";
  EXPECT_EQ(ByteVector(record.begin(), record.begin() + 37), plain);

  // A flipped bit in the MAC, or in the padding: EBADMSG, nothing written.
  for (std::size_t at : {std::size_t{40}, std::size_t{63}}) {
    ByteVector forged = sealed;
    forged[at - 16] ^= 1;  // CBC: flips bit `at` of the plaintext
    ByteVector before = forged;
    back.src = back.dst = address(forged.data());
    back.len = 64;
    EXPECT_EQ(ioctl(kCiocAuthCrypt, &back), -EBADMSG) << at;
    EXPECT_EQ(forged, before) << "no unverified plaintext is released";
  }
  CryptAuthOp not_in_place = op;
  ByteVector other(64);
  not_in_place.dst = address(other.data());
  EXPECT_EQ(ioctl(kCiocAuthCrypt, &not_in_place), -EINVAL) << "TLS works in place only";
}

TEST_F(DevcryptoModes, SrtpTypeIsEncryptThenMacOverAuthSrc) {
  const std::uint32_t ses = open(kAesCtr, kAesKey, kSha1Hmac, kMacKey);
  ByteVector packet = random_bytes(12 + 100);  // a 12-byte header, then the payload
  const ByteVector original = packet;
  ByteVector tag(10), iv = kIv;
  CryptAuthOp op{.ses = ses, .op = kEncrypt, .flags = kFlagAeadSrtp, .len = 100, .auth_len = 112};
  op.auth_src = address(packet.data());
  op.src = op.dst = address(packet.data() + 12);
  op.tag = address(tag.data());
  op.tag_len = 10;
  op.iv = address(iv.data());
  ASSERT_EQ(ioctl(kCiocAuthCrypt, &op), 0);
  EXPECT_EQ(ByteVector(packet.begin(), packet.begin() + 12),
            ByteVector(original.begin(), original.begin() + 12))
      << "the header stays";
  EXPECT_EQ(ByteVector(packet.begin() + 12, packet.end()),
            openssl_cipher(EVP_aes_128_ctr(), kAesKey, kIv,
                           ByteVector(original.begin() + 12, original.end()), true));
  const ByteVector mac = openssl_hmac_sha1(kMacKey, packet, {});
  EXPECT_EQ(tag, ByteVector(mac.begin(), mac.begin() + 10)) << "the MAC of header || ciphertext";

  CryptAuthOp back = op;
  back.op = kDecrypt;
  const ByteVector sealed = packet;
  ASSERT_EQ(ioctl(kCiocAuthCrypt, &back), 0);
  EXPECT_EQ(packet, original);

  packet = sealed;
  tag[0] ^= 1;
  EXPECT_EQ(ioctl(kCiocAuthCrypt, &back), -EBADMSG);
  EXPECT_EQ(packet, sealed) << "nothing decrypted";

  const std::uint32_t cbc = open(kAesCbc, kAesKey, kSha1Hmac, kMacKey);
  CryptAuthOp block_cipher = op;
  block_cipher.ses = cbc;
  EXPECT_EQ(ioctl(kCiocAuthCrypt, &block_cipher), -EINVAL) << "SRTP takes stream ciphers only";
  CryptAuthOp far = op;
  ByteVector big(400);
  far.auth_src = address(big.data());
  far.src = far.dst = address(big.data() + 300);
  far.auth_len = 400;
  EXPECT_EQ(ioctl(kCiocAuthCrypt, &far), -EINVAL) << "src more than 256 bytes into auth_src";
}

TEST_F(DevcryptoModes, TheNullCipherCopies) {
  const ByteVector no_key;
  const std::uint32_t ses = open(kNull, no_key, 0, {});
  const ByteVector data = random_bytes(1000);
  ByteVector out(1000);
  CryptOp op{.ses = ses, .op = kEncrypt, .len = 1000};
  op.src = address(data.data());
  op.dst = address(out.data());
  ASSERT_EQ(ioctl(kCiocCrypt, &op), 0);
  EXPECT_EQ(out, data);
  SessionInfoOp info{};
  info.ses = ses;
  ASSERT_EQ(ioctl(kCiocGSessInfo, &info), 0);
  EXPECT_STREQ(info.cipher_info.cra_name, "ecb(cipher_null)");
}

TEST_F(DevcryptoModes, NullBuffersWithALengthAreEinvalAsInTheModule) {
  const std::uint32_t ses = open(kAesCbc, kAesKey, 0, {});
  ByteVector buffer(16);
  CryptOp null_src{.ses = ses, .op = kEncrypt, .len = 16};
  null_src.dst = address(buffer.data());
  EXPECT_EQ(ioctl(kCiocCrypt, &null_src), -EINVAL);
  CryptOp null_dst{.ses = ses, .op = kEncrypt, .len = 16};
  null_dst.src = address(buffer.data());
  EXPECT_EQ(ioctl(kCiocCrypt, &null_dst), -EINVAL);
}

TEST_F(DevcryptoModes, AsynchronousRequestsAreFetchedInOrderWithTheirResults) {
  const std::uint32_t ses = open(kAesCbc, kAesKey, 0, {});
  CryptOp none{};
  EXPECT_EQ(ioctl(kCiocAsyncFetch, &none), -EBUSY) << "nothing submitted";

  const ByteVector plain = random_bytes(32);
  ByteVector first(32), second(32), iv = kIv;
  CryptOp a{.ses = ses, .op = kEncrypt, .len = 32};
  a.src = address(plain.data());
  a.dst = address(first.data());
  a.iv = address(iv.data());
  CryptOp b = a;
  b.dst = address(second.data());
  b.len = 15;  // not a whole block: its result is EINVAL, at the fetch
  ASSERT_EQ(ioctl(kCiocAsyncCrypt, &a), 0);
  ASSERT_EQ(ioctl(kCiocAsyncCrypt, &b), 0);
  EXPECT_EQ(first, ByteVector(32, 0)) << "output is written by the fetch";

  CryptOp fetched{};
  ASSERT_EQ(ioctl(kCiocAsyncFetch, &fetched), 0);
  EXPECT_EQ(fetched.dst, a.dst) << "the first request's struct";
  EXPECT_EQ(first, openssl_cipher(EVP_aes_128_cbc(), kAesKey, kIv, plain, true));
  EXPECT_EQ(ioctl(kCiocAsyncFetch, &fetched), -EINVAL) << "the second one's result";
  EXPECT_EQ(ioctl(kCiocAsyncFetch, &fetched), -EBUSY);

  CryptOp bad_session = a;
  bad_session.ses = 1;
  EXPECT_EQ(ioctl(kCiocAsyncCrypt, &bad_session), -EINVAL) << "refused at once";
  CryptOp too_long = a;
  too_long.len = (1u << 20) + 16;
  EXPECT_EQ(ioctl(kCiocAsyncCrypt, &too_long), -EMSGSIZE) << "refused at once, not queued";
  CryptOp no_zc = a;
  no_zc.flags = kFlagNoZeroCopy;
  EXPECT_EQ(ioctl(kCiocAsyncCrypt, &no_zc), -EINVAL);

  for (std::size_t i = 0; i < kMaxAsyncRequests; ++i) ASSERT_EQ(ioctl(kCiocAsyncCrypt, &a), 0);
  EXPECT_FALSE(client_.has_room());
  EXPECT_EQ(ioctl(kCiocAsyncCrypt, &a), -EBUSY) << "64 queued";
  ASSERT_EQ(ioctl(kCiocAsyncFetch, &fetched), 0);
  EXPECT_TRUE(client_.has_room());
}

TEST_F(DevcryptoModes, AFetchKeepsItsResultAcrossRoundsWhateverOtherThreadsFetch) {
  const std::uint32_t ses = open(kAesCbc, kAesKey, 0, {});
  const ByteVector plain = random_bytes(16);
  ByteVector one(16), two(16), iv = kIv;
  CryptOp a{.ses = ses, .op = kEncrypt, .len = 16};
  a.src = address(plain.data());
  a.dst = address(one.data());
  a.iv = address(iv.data());
  CryptOp b = a;
  b.dst = address(two.data());
  ASSERT_EQ(ioctl(kCiocAsyncCrypt, &a), 0);
  ASSERT_EQ(ioctl(kCiocAsyncCrypt, &b), 0);
  // Thread 7's round 1 claims a; thread 8 fetches meanwhile and gets b.
  CryptOp got7{}, got8{};
  const auto r = devcrypto::handle_ioctl(
      service_, client_, {.cmd = kCiocAsyncFetch, .arg = address(&got7), .caller = 7});
  ASSERT_EQ(r.kind, devcrypto::IoctlReply::Kind::retry);
  ASSERT_EQ(ioctl(kCiocAsyncFetch, &got8, 8), 0);
  EXPECT_EQ(got8.dst, b.dst);
  ASSERT_EQ(ioctl(kCiocAsyncFetch, &got7, 7), 0);
  EXPECT_EQ(got7.dst, a.dst);
}

TEST_F(DevcryptoModes, CopyHashContinuesAnotherSessionsHash) {
  const std::uint32_t from = open(0, {}, kSha256, {}), to = open(0, {}, kSha256, {});
  const std::string text = "abc";
  CryptOp update{.ses = from, .op = kEncrypt, .flags = kFlagUpdate, .len = 2};
  update.src = address(text.data());
  ASSERT_EQ(ioctl(kCiocCrypt, &update), 0);
  CopyHashOp copy{.dst_ses = to, .src_ses = from};
  ASSERT_EQ(ioctl(kCiocCopyHash, &copy), 0);
  ByteVector mac(32);
  CryptOp last{.ses = to, .op = kEncrypt, .flags = kFlagFinal, .len = 1};
  last.src = address(text.data() + 2);
  last.mac = address(mac.data());
  ASSERT_EQ(ioctl(kCiocCrypt, &last), 0);
  EXPECT_EQ(mac, hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
  CopyHashOp unknown{.dst_ses = to, .src_ses = 1};
  EXPECT_EQ(ioctl(kCiocCopyHash, &unknown), -ENOENT) << "as the module";
}

TEST_F(DevcryptoModes, AsymmetricFeaturesAreOcfsModExpsAndCriogetAsksForThePreloadLibrary) {
  std::uint32_t features = 0xffffffff;
  ASSERT_EQ(ioctl(kCiocAsymFeat, &features), 0);
  EXPECT_EQ(features, kFeatureModExp | kFeatureModExpCrt) << "CIOCKEY (devcrypto_key_test.cpp)";
  std::uint32_t fd = 0;
  EXPECT_EQ(ioctl(kCrioGet, &fd), -EOPNOTSUPP);
}

}  // namespace
}  // namespace cryptoaccel::test
