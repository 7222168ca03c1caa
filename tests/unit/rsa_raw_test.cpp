// RSA with no padding (RsaPadding::none, RFC 8017 RSAEP/RSADP) against
// OpenSSL's own RSA_NO_PADDING on the same key, over every driver here that
// serves it, and what it refuses: inputs of another length or not below
// the modulus, and signatures.
#include <gtest/gtest.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <memory>
#include <vector>

#include "cryptoaccel/driver/rsa_padding.hpp"
#include "cryptoaccel/rsa.hpp"
#include "openssl_objects.hpp"
#include "test_util.hpp"

namespace cryptoaccel {
namespace {

using test::ByteVector;
using test::Pkey;
using test::PkeyCtx;

struct Shared {
  Pkey openssl{EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", std::size_t{2048})};
  RsaKey key = [this] {
    unsigned char* der = nullptr;
    const int n = i2d_PrivateKey(openssl.get(), &der);
    const ByteVector bytes(der, der + n);
    OPENSSL_free(der);
    return RsaKey::from_der(bytes);
  }();
};
Shared& shared() {
  static Shared s;
  return s;
}

// OpenSSL's RSA_NO_PADDING, encrypting (m^e) or decrypting (c^d).
ByteVector openssl_raw(EVP_PKEY* key, bool encrypt, const ByteVector& in) {
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, key, nullptr));
  std::size_t length = static_cast<std::size_t>(EVP_PKEY_get_size(key));
  ByteVector out(length);
  const bool ok =
      (encrypt ? EVP_PKEY_encrypt_init(ctx.get()) : EVP_PKEY_decrypt_init(ctx.get())) == 1 &&
      EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_NO_PADDING) == 1 &&
      (encrypt ? EVP_PKEY_encrypt(ctx.get(), out.data(), &length, in.data(), in.size())
               : EVP_PKEY_decrypt(ctx.get(), out.data(), &length, in.data(), in.size())) == 1;
  if (!ok) throw std::runtime_error("OpenSSL refused the raw operation");
  out.resize(length);
  return out;
}

// A random number below the modulus, a whole modulus long.
ByteVector below_modulus(const RsaKey& key) {
  ByteVector m = test::random_bytes(key.size());
  m[0] = static_cast<std::uint8_t>(m[0] % key.modulus()[0]);
  return m;
}

const RsaParameters kRaw{.padding = RsaPadding::none};

TEST(RsaRaw, TheKeyKnowsItsModulus) {
  const Shared& s = shared();
  BIGNUM* n = nullptr;
  ASSERT_EQ(EVP_PKEY_get_bn_param(s.openssl.get(), OSSL_PKEY_PARAM_RSA_N, &n), 1);
  ByteVector expected(256);
  BN_bn2binpad(n, expected.data(), 256);
  BN_free(n);
  EXPECT_EQ(ByteVector(s.key.modulus().begin(), s.key.modulus().end()), expected);
  EXPECT_EQ(to_string(RsaPadding::none), "none");
}

TEST(RsaRaw, SoftMatchesOpenSslsNoPaddingBothWays) {
  Shared& s = shared();
  RsaSession session(s.key, {.driver = "soft"});
  for (int i = 0; i < 8; ++i) {
    const ByteVector m = below_modulus(s.key);
    const ByteVector c = session.encrypt(kRaw, m);
    EXPECT_EQ(c, openssl_raw(s.openssl.get(), true, m));
    const ByteVector back = session.decrypt(kRaw, c);
    EXPECT_EQ(back, m) << "RSADP(RSAEP(m)) = m, all " << back.size() << " bytes";
    EXPECT_EQ(session.decrypt(kRaw, m), openssl_raw(s.openssl.get(), false, m));
  }
  // Small numbers keep their leading zeros: 0, 1, and 2^8.
  for (const ByteVector& small : {ByteVector(256, 0), [] {
                                    ByteVector one(256, 0);
                                    one[255] = 1;
                                    return one;
                                  }()}) {
    EXPECT_EQ(session.encrypt(kRaw, small), small) << "0^e = 0, 1^e = 1";
    EXPECT_EQ(session.decrypt(kRaw, small), small);
  }
}

TEST(RsaRaw, EveryDriverThatTakesItAgreesWithSoft) {
  Shared& s = shared();
  RsaSession soft(s.key, {.driver = "soft"});
  RsaSession dispatched(s.key);
  const ByteVector m = below_modulus(s.key);
  EXPECT_EQ(dispatched.encrypt(kRaw, m), soft.encrypt(kRaw, m));
  EXPECT_EQ(dispatched.decrypt(kRaw, m), soft.decrypt(kRaw, m));
}

TEST(RsaRaw, InputsOfAnotherLengthOrNotBelowTheModulusAreRefused) {
  Shared& s = shared();
  RsaSession session(s.key, {.driver = "soft"});
  ByteVector out(256);
  EXPECT_THROW(session.encrypt(kRaw, ByteVector(255, 1), out), InvalidLength);
  EXPECT_THROW(session.encrypt(kRaw, ByteVector(257, 0), out), InvalidLength);
  EXPECT_THROW(session.decrypt(kRaw, ByteVector(255, 1), out), InvalidLength);
  const ByteVector n(s.key.modulus().begin(), s.key.modulus().end());
  EXPECT_THROW(session.encrypt(kRaw, n, out), InvalidArgument) << "n itself";
  EXPECT_THROW(session.decrypt(kRaw, n, out), InvalidArgument);
  EXPECT_THROW(session.encrypt(kRaw, ByteVector(256, 0xff), out), InvalidArgument);
  ByteVector n_minus_one = n;
  n_minus_one[255] -= 1;  // n is odd
  EXPECT_NO_THROW(session.encrypt(kRaw, n_minus_one, out));
  EXPECT_EQ(session.decrypt(kRaw, out), n_minus_one);
}

TEST(RsaRaw, IsNoSignaturePadding) {
  Shared& s = shared();
  RsaSession session(s.key, {.driver = "soft"});
  const ByteVector digest(32, 1);
  EXPECT_THROW(session.sign(kRaw, digest), InvalidArgument);
  EXPECT_THROW(session.verify(kRaw, digest, ByteVector(256, 0)), InvalidArgument);
}

TEST(RsaRaw, PublicKeysEncrypt) {
  Shared& s = shared();
  RsaSession session(s.key.public_key(), {.driver = "soft"});
  const ByteVector m = below_modulus(s.key);
  EXPECT_EQ(session.encrypt(kRaw, m), openssl_raw(s.openssl.get(), true, m));
  EXPECT_THROW(session.decrypt(kRaw, m), InvalidKey);
}

// What keyring:rsa-generic runs in userland around the kernel's enc=raw:
// with no padding, the identity both ways.
TEST(RsaRaw, TheUserlandPaddingIsTheIdentity) {
  const ByteVector m = test::random_bytes(256);
  ByteVector em(256), out(256);
  ASSERT_EQ(rsa_padding::encode_encryption(kRaw, m, em), ErrorCode::ok);
  EXPECT_EQ(em, m);
  std::size_t length = 0;
  ASSERT_EQ(rsa_padding::decode_encryption(kRaw, em, out, length), ErrorCode::ok);
  EXPECT_EQ(length, 256u);
  EXPECT_EQ(out, m);
  EXPECT_EQ(rsa_padding::encode_encryption(kRaw, ByteVector(255, 1), em),
            ErrorCode::invalid_length);
  EXPECT_EQ(rsa_padding::encode_signature(kRaw, ByteVector(32, 1), 2048, em),
            ErrorCode::invalid_argument);
}

}  // namespace
}  // namespace cryptoaccel
