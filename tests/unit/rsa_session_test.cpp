// RSA sessions from outside: keys OpenSSL wrote, results OpenSSL's default
// provider checks, and the bad input a hostile caller gives (keys of other
// sizes, a public key for a private operation, corrupt ciphertexts).
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cryptoaccel/rsa.hpp"

namespace cryptoaccel {
namespace {

using ByteVector = std::vector<std::uint8_t>;

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
struct CtxFree {
  void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
};
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, CtxFree>;

Pkey openssl_key(unsigned bits) {
  return Pkey(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<std::size_t>(bits)));
}

ByteVector private_der(EVP_PKEY* key) {
  unsigned char* der = nullptr;
  const int n = i2d_PrivateKey(key, &der);  // PKCS#1 RSAPrivateKey
  ByteVector out(der, der + n);
  OPENSSL_free(der);
  return out;
}

std::string private_pem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);  // PKCS#8
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<std::size_t>(n));
  BIO_free(bio);
  return out;
}

// One 2048-bit key for the suite, from OpenSSL, in both forms.
struct Shared {
  Pkey openssl = openssl_key(2048);
  RsaKey key = RsaKey::from_der(private_der(openssl.get()));
};
Shared& shared() {
  static Shared s;
  return s;
}

ByteVector sha256(std::string_view text) {
  ByteVector out(32);
  unsigned n = 0;
  EVP_Digest(text.data(), text.size(), out.data(), &n, EVP_sha256(), nullptr);
  return out;
}

// OpenSSL's default provider verifies a signature of ours.
bool openssl_verifies(EVP_PKEY* key, int padding, const ByteVector& digest,
                      const ByteVector& signature, int salt = RSA_PSS_SALTLEN_AUTO) {
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, key, nullptr));
  if (EVP_PKEY_verify_init(ctx.get()) != 1 ||
      EVP_PKEY_CTX_set_rsa_padding(ctx.get(), padding) != 1 ||
      EVP_PKEY_CTX_set_signature_md(ctx.get(), EVP_sha256()) != 1)
    return false;
  if (padding == RSA_PKCS1_PSS_PADDING && EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx.get(), salt) != 1)
    return false;
  return EVP_PKEY_verify(ctx.get(), signature.data(), signature.size(), digest.data(),
                         digest.size()) == 1;
}

TEST(RsaKeys, OpenSslsKeysLoadInEveryForm) {
  Shared& s = shared();
  EXPECT_EQ(s.key.bits(), 2048u);
  EXPECT_TRUE(s.key.has_private());
  EXPECT_EQ(s.key.algorithm().id, AlgorithmId::rsa2048);
  const RsaKey from_pem = RsaKey::from_pem(private_pem(s.openssl.get()));
  EXPECT_TRUE(from_pem.has_private());
  EXPECT_EQ(from_pem.public_der(), s.key.public_der());
  const RsaKey pub = RsaKey::from_der(s.key.public_der());
  EXPECT_FALSE(pub.has_private());
  EXPECT_EQ(pub.public_der(), s.key.public_der());
}

TEST(RsaKeys, WhatIsNotAKeyIsRefusedByName) {
  const ByteVector garbage{0x30, 0x03, 0x02, 0x01, 0x01};
  EXPECT_THROW(RsaKey::from_der(garbage), InvalidKey);
  EXPECT_THROW(RsaKey::from_der({}), InvalidKey);
  EXPECT_THROW(RsaKey::from_pem("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"),
               InvalidKey);
  // An EC key is a key, but not RSA.
  Pkey ec(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  EXPECT_THROW(RsaKey::from_der(private_der(ec.get())), InvalidKey);
  // n, e and a d that belongs to neither.
  const ByteVector n(256, 0xc5), e{1, 0, 1}, d(255, 0x17);
  EXPECT_THROW(RsaKey::from_components({.n = n, .e = e, .d = d}), InvalidKey);
}

TEST(RsaKeys, OtherSizesAreRefusedSayingWhich) {
  const RsaKey small = RsaKey::from_der(private_der(openssl_key(1024).get()));
  EXPECT_EQ(small.bits(), 1024u);
  try {
    RsaSession session(small);
    FAIL() << "a 1024-bit key opened a session";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("1024"), std::string::npos) << e.what();
  }
  EXPECT_THROW(RsaKey::generate(1024), Unsupported);
}

TEST(RsaSessions, SignaturesVerifyUnderOpenSsl) {
  Shared& s = shared();
  RsaSession session(s.key);
  const ByteVector digest = sha256("the message");
  const RsaParameters pkcs1{.padding = RsaPadding::pkcs1, .digest = AlgorithmId::sha256};
  const ByteVector v15 = session.sign(pkcs1, digest);
  EXPECT_TRUE(openssl_verifies(s.openssl.get(), RSA_PKCS1_PADDING, digest, v15));
  EXPECT_TRUE(session.verify(pkcs1, digest, v15));
  EXPECT_EQ(session.last_driver(), "soft");
  // Every salt convention OpenSSL has.
  for (const int salt : {kSaltDigestLength, kSaltMaximum, kSaltAuto, 0, 20, 222}) {
    SCOPED_TRACE(salt);
    const RsaParameters pss{.padding = RsaPadding::pss,
                            .digest = AlgorithmId::sha256,
                            .mgf1_digest = AlgorithmId::sha256,
                            .salt_length = salt};
    const ByteVector signature = session.sign(pss, digest);
    EXPECT_TRUE(openssl_verifies(s.openssl.get(), RSA_PKCS1_PSS_PADDING, digest, signature));
    EXPECT_TRUE(
        session.verify({.padding = RsaPadding::pss, .salt_length = kSaltAuto}, digest, signature));
  }
  // A maximal salt is not the digest's length.
  const ByteVector longest =
      session.sign({.padding = RsaPadding::pss, .salt_length = kSaltMaximum}, digest);
  EXPECT_FALSE(session.verify({.padding = RsaPadding::pss, .salt_length = kSaltDigestLength},
                              digest, longest));
  // A salt that leaves no room.
  EXPECT_THROW(session.sign({.padding = RsaPadding::pss, .salt_length = 223}, digest), Error);
}

TEST(RsaSessions, UnhashedSignaturesForOldTls) {
  RsaSession session(shared().key);
  const ByteVector md5_sha1(36, 0x5a);
  const RsaParameters none{.padding = RsaPadding::pkcs1, .digest = kNoDigest};
  const ByteVector signature = session.sign(none, md5_sha1);
  EXPECT_TRUE(session.verify(none, md5_sha1, signature));
  EXPECT_THROW(session.sign(none, ByteVector(246, 1)), InvalidLength);
  EXPECT_THROW(session.sign({.padding = RsaPadding::pss, .digest = kNoDigest}, md5_sha1),
               InvalidArgument);
}

TEST(RsaSessions, APublicKeyDoesOnlyPublicOperations) {
  RsaSession pub(shared().key.public_key());
  RsaSession priv(shared().key);
  EXPECT_FALSE(pub.has_private());
  const ByteVector digest = sha256("x");
  const RsaParameters p{};
  EXPECT_THROW(pub.sign(p, digest), InvalidKey);
  EXPECT_THROW(pub.decrypt(p, ByteVector(256, 1)), InvalidKey);
  EXPECT_TRUE(pub.verify(p, digest, priv.sign(p, digest)));
  const ByteVector message{'h', 'i'};
  EXPECT_EQ(priv.decrypt(p, pub.encrypt(p, message)), message);
  // The label is a view: its bytes must outlive the parameters.
  const ByteVector label{'L'};
  const RsaParameters oaep{.padding = RsaPadding::oaep, .label = label};
  EXPECT_EQ(priv.decrypt(oaep, pub.encrypt(oaep, message)), message);
}

TEST(RsaSessions, ArgumentsAreCheckedWithReasons) {
  RsaSession session(shared().key);
  const ByteVector digest = sha256("x");
  EXPECT_THROW(session.sign({.digest = AlgorithmId::sha384}, digest), InvalidLength);
  EXPECT_THROW(session.sign({.padding = RsaPadding::oaep}, digest), InvalidArgument);
  EXPECT_THROW(session.encrypt({.padding = RsaPadding::pss}, digest), InvalidArgument);
  EXPECT_THROW(session.encrypt({.label = ByteVector{1}}, digest), InvalidArgument);
  EXPECT_THROW(session.sign({.digest = AlgorithmId::aes_128_cbc}, digest), InvalidArgument);
  EXPECT_THROW(session.encrypt({}, ByteVector(246, 1)), InvalidLength);
  EXPECT_NO_THROW(session.encrypt({}, ByteVector(245, 1)));
  EXPECT_THROW(session.encrypt({.padding = RsaPadding::oaep}, ByteVector(191, 1)), InvalidLength);
  EXPECT_THROW(session.decrypt({}, ByteVector(255, 1)), InvalidLength);
  ByteVector small(100);
  EXPECT_THROW(session.sign({}, digest, small), InvalidLength);
  // A signature of another length does not verify; nothing throws.
  EXPECT_FALSE(session.verify({}, digest, ByteVector(255, 1)));
}

// No padding oracle: every corrupt ciphertext gets the same error, with
// the same message, and the output is wiped.
TEST(RsaSessions, EveryCorruptCiphertextFailsAlike) {
  RsaSession session(shared().key);
  for (const RsaPadding padding : {RsaPadding::pkcs1, RsaPadding::oaep}) {
    const RsaParameters p{.padding = padding};
    const ByteVector good = session.encrypt(p, ByteVector(32, 0x42));
    std::set<std::string> messages;
    std::size_t failed = 0;
    for (std::size_t i = 0; i < good.size(); i += 7) {
      ByteVector bad = good;
      bad[i] ^= 0x01;
      ByteVector out(256, 0xee);
      try {
        session.decrypt(p, bad, out);
      } catch (const DecryptionFailed& e) {
        messages.insert(e.what());
        ++failed;
        EXPECT_EQ(out, ByteVector(256, 0)) << "output left after a failure";
      }
    }
    // A flipped bit may, rarely, still leave a valid PKCS#1 v1.5 padding.
    EXPECT_GE(failed, good.size() / 7 - 1) << to_string(padding);
    EXPECT_EQ(messages.size(), 1u) << to_string(padding);
  }
}

// try_decrypt answers a bad padding with no value and the output wiped,
// a good one with its length; other errors are still thrown.
TEST(RsaSessions, TryDecryptAnswersABadPaddingWithoutAnException) {
  RsaSession session(shared().key);
  const ByteVector message(32, 0x42);
  ByteVector good = session.encrypt({}, message), out(256, 0xee);
  const std::optional<std::size_t> length = session.try_decrypt({}, good, out);
  ASSERT_TRUE(length.has_value());
  EXPECT_EQ(ByteVector(out.begin(), out.begin() + static_cast<long>(*length)), message);
  ByteVector bad(256, 0x01);
  bad[0] = 0;
  bad = session.encrypt({.padding = RsaPadding::none}, bad);
  std::fill(out.begin(), out.end(), 0xee);
  EXPECT_FALSE(session.try_decrypt({}, bad, out).has_value());
  EXPECT_EQ(out, ByteVector(256, 0)) << "output left after a failure";
  EXPECT_THROW(session.try_decrypt({}, ByteVector(255, 1), out), InvalidLength);
}

TEST(RsaSessions, ASmallOutputTakesWhatFits) {
  RsaSession session(shared().key);
  const ByteVector message(40, 7);
  const ByteVector ciphertext = session.encrypt({}, message);
  ByteVector fits(40), short_by_one(39);
  EXPECT_EQ(session.decrypt({}, ciphertext, fits), 40u);
  EXPECT_EQ(fits, message);
  // Too long for the output: a failed decryption, like a bad padding, so
  // that a short buffer does not tell valid paddings from bad ones.
  EXPECT_THROW(session.decrypt({}, ciphertext, short_by_one), DecryptionFailed);
  EXPECT_EQ(short_by_one, ByteVector(39, 0));
  ByteVector premaster(48);
  EXPECT_FALSE(session.try_decrypt({}, session.encrypt({}, ByteVector(100, 1)), premaster));
  ByteVector bad(256, 0x01);
  bad[0] = 0;
  EXPECT_FALSE(
      session.try_decrypt({}, session.encrypt({.padding = RsaPadding::none}, bad), premaster));
  const RsaParameters oaep{.padding = RsaPadding::oaep};
  EXPECT_FALSE(session.try_decrypt(oaep, session.encrypt(oaep, ByteVector(100, 1)), premaster));
}

TEST(RsaSessions, TheBatchApiKeepsEachRequestsStatus) {
  RsaSession session(shared().key);
  const ByteVector digest = sha256("batch");
  const RsaParameters p{};
  ByteVector good = session.sign(p, digest), forged = good;
  forged[10] ^= 1;
  ByteVector signature(256), too_short(255);
  std::vector<Request> batch(4);
  batch[0] = {.op = Operation::sign, .in = digest, .out = signature, .rsa = &p};
  batch[1] = {.op = Operation::verify, .in = digest, .tag = good, .rsa = &p};
  batch[2] = {.op = Operation::verify, .in = digest, .tag = forged, .rsa = &p};
  batch[3] = {.op = Operation::sign, .in = digest, .out = too_short, .rsa = &p};
  EXPECT_EQ(session.process(batch), 2u);
  EXPECT_EQ(batch[0].status, ErrorCode::ok);
  EXPECT_EQ(signature, good);  // PKCS#1 v1.5 is deterministic
  EXPECT_EQ(batch[1].status, ErrorCode::ok);
  EXPECT_EQ(batch[2].status, ErrorCode::authentication_failed);
  EXPECT_EQ(batch[3].status, ErrorCode::invalid_length);
}

}  // namespace
}  // namespace cryptoaccel
