// The userland paddings a raw-RSA driver (the keyring's enc=raw) relies on,
// checked against OpenSSL: our encoding under OpenSSL's raw private
// operation must give OpenSSL's own signature (PKCS#1 v1.5) or one it
// verifies (PSS); OpenSSL's ciphertexts under the raw private operation
// must decode to the message; and every corrupt one fails alike.
#include "cryptoaccel/driver/rsa_padding.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <memory>
#include <string>
#include <vector>

namespace cryptoaccel {
namespace {

using ByteVector = std::vector<std::uint8_t>;

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct CtxFree {
  void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using Ctx = std::unique_ptr<EVP_PKEY_CTX, CtxFree>;

EVP_PKEY* key() {
  static Pkey k(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", std::size_t{2048}));
  return k.get();
}
constexpr std::size_t kBits = 2048, kBytes = 256;

// m^d or m^e mod n, as a device doing raw RSA would.
ByteVector raw(bool private_op, const ByteVector& in) {
  Ctx ctx(EVP_PKEY_CTX_new(key(), nullptr));
  ByteVector out(kBytes);
  std::size_t n = out.size();
  const int ok = private_op
                     ? EVP_PKEY_decrypt_init(ctx.get()) == 1 &&
                           EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_NO_PADDING) == 1 &&
                           EVP_PKEY_decrypt(ctx.get(), out.data(), &n, in.data(), in.size()) == 1
                     : EVP_PKEY_encrypt_init(ctx.get()) == 1 &&
                           EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_NO_PADDING) == 1 &&
                           EVP_PKEY_encrypt(ctx.get(), out.data(), &n, in.data(), in.size()) == 1;
  EXPECT_TRUE(ok);
  return out;
}

const EVP_MD* md_for(AlgorithmId id) {
  return EVP_get_digestbyname(std::string(algorithm(id).openssl_name).c_str());
}

ByteVector digest_of(AlgorithmId id, std::string_view text) {
  ByteVector out(EVP_MAX_MD_SIZE);
  unsigned n = 0;
  EVP_Digest(text.data(), text.size(), out.data(), &n, md_for(id), nullptr);
  out.resize(n);
  return out;
}

ByteVector openssl_sign(int padding, AlgorithmId md, const ByteVector& digest, int salt = -1) {
  Ctx ctx(EVP_PKEY_CTX_new(key(), nullptr));
  EXPECT_EQ(EVP_PKEY_sign_init(ctx.get()), 1);
  EVP_PKEY_CTX_set_rsa_padding(ctx.get(), padding);
  if (md != kNoDigest) EVP_PKEY_CTX_set_signature_md(ctx.get(), md_for(md));
  if (padding == RSA_PKCS1_PSS_PADDING) EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx.get(), salt);
  ByteVector sig(kBytes);
  std::size_t n = sig.size();
  EXPECT_EQ(EVP_PKEY_sign(ctx.get(), sig.data(), &n, digest.data(), digest.size()), 1);
  return sig;
}

bool openssl_verify(int padding, AlgorithmId md, const ByteVector& digest, const ByteVector& sig) {
  Ctx ctx(EVP_PKEY_CTX_new(key(), nullptr));
  EVP_PKEY_verify_init(ctx.get());
  EVP_PKEY_CTX_set_rsa_padding(ctx.get(), padding);
  EVP_PKEY_CTX_set_signature_md(ctx.get(), md_for(md));
  if (padding == RSA_PKCS1_PSS_PADDING)
    EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx.get(), RSA_PSS_SALTLEN_AUTO);
  return EVP_PKEY_verify(ctx.get(), sig.data(), sig.size(), digest.data(), digest.size()) == 1;
}

constexpr AlgorithmId kDigests[] = {AlgorithmId::md5,      AlgorithmId::sha1,   AlgorithmId::sha224,
                                    AlgorithmId::sha256,   AlgorithmId::sha384, AlgorithmId::sha512,
                                    AlgorithmId::ripemd160};

TEST(RsaPadding, Pkcs1SignaturesAreOpenSslsOwn) {
  for (const AlgorithmId md : kDigests) {
    SCOPED_TRACE(std::string(algorithm(md).name));
    const ByteVector digest = digest_of(md, "message");
    const RsaParameters p{.padding = RsaPadding::pkcs1, .digest = md};
    ByteVector em(kBytes);
    ASSERT_EQ(rsa_padding::encode_signature(p, digest, kBits, em), ErrorCode::ok);
    const ByteVector theirs = openssl_sign(RSA_PKCS1_PADDING, md, digest);
    EXPECT_EQ(raw(true, em), theirs);
    EXPECT_TRUE(rsa_padding::verify_signature(p, digest, kBits, raw(false, theirs)));
    ByteVector other = digest;
    other[0] ^= 1;
    EXPECT_FALSE(rsa_padding::verify_signature(p, other, kBits, raw(false, theirs)));
  }
  // No DigestInfo: TLS 1.1's MD5 and SHA-1 pair.
  const ByteVector pair(36, 0x33);
  ByteVector em(kBytes);
  const RsaParameters none{.padding = RsaPadding::pkcs1, .digest = kNoDigest};
  ASSERT_EQ(rsa_padding::encode_signature(none, pair, kBits, em), ErrorCode::ok);
  EXPECT_EQ(raw(true, em), openssl_sign(RSA_PKCS1_PADDING, kNoDigest, pair));
}

TEST(RsaPadding, PssSignaturesVerifyBothWays) {
  for (const AlgorithmId md : {AlgorithmId::sha1, AlgorithmId::sha256, AlgorithmId::sha512}) {
    for (const int salt : {kSaltDigestLength, kSaltMaximum, kSaltAuto, 0, 17}) {
      SCOPED_TRACE(std::string(algorithm(md).name) + " salt " + std::to_string(salt));
      const ByteVector digest = digest_of(md, "pss");
      const RsaParameters p{
          .padding = RsaPadding::pss, .digest = md, .mgf1_digest = md, .salt_length = salt};
      ByteVector em(kBytes);
      ASSERT_EQ(rsa_padding::encode_signature(p, digest, kBits, em), ErrorCode::ok);
      EXPECT_TRUE(openssl_verify(RSA_PKCS1_PSS_PADDING, md, digest, raw(true, em)));
      const ByteVector theirs = openssl_sign(RSA_PKCS1_PSS_PADDING, md, digest,
                                             salt == kSaltAuto ? RSA_PSS_SALTLEN_MAX : salt);
      EXPECT_TRUE(rsa_padding::verify_signature(p, digest, kBits, raw(false, theirs)));
      RsaParameters any = p;
      any.salt_length = kSaltAuto;
      EXPECT_TRUE(rsa_padding::verify_signature(any, digest, kBits, raw(false, theirs)));
      ByteVector tampered = raw(false, theirs);
      tampered[40] ^= 4;
      EXPECT_FALSE(rsa_padding::verify_signature(any, digest, kBits, tampered));
    }
  }
}

ByteVector openssl_encrypt(const RsaParameters& p, const ByteVector& message) {
  Ctx ctx(EVP_PKEY_CTX_new(key(), nullptr));
  EVP_PKEY_encrypt_init(ctx.get());
  if (p.padding == RsaPadding::oaep) {
    EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_OAEP_PADDING);
    EVP_PKEY_CTX_set_rsa_oaep_md(ctx.get(), md_for(p.digest));
    EVP_PKEY_CTX_set_rsa_mgf1_md(ctx.get(), md_for(p.mgf1_digest));
    if (!p.label.empty()) {
      auto* label = static_cast<unsigned char*>(OPENSSL_memdup(p.label.data(), p.label.size()));
      EVP_PKEY_CTX_set0_rsa_oaep_label(ctx.get(), label, static_cast<int>(p.label.size()));
    }
  } else {
    EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_PADDING);
  }
  ByteVector out(kBytes);
  std::size_t n = out.size();
  EXPECT_EQ(EVP_PKEY_encrypt(ctx.get(), out.data(), &n, message.data(), message.size()), 1);
  return out;
}

TEST(RsaPadding, EncryptionRoundTripsWithOpenSsl) {
  const ByteVector label{'l', 'a', 'b'};
  const RsaParameters cases[] = {
      {.padding = RsaPadding::pkcs1},
      {.padding = RsaPadding::oaep, .digest = AlgorithmId::sha1, .mgf1_digest = AlgorithmId::sha1},
      {.padding = RsaPadding::oaep,
       .digest = AlgorithmId::sha256,
       .mgf1_digest = AlgorithmId::sha512,
       .label = label},
  };
  for (const RsaParameters& p : cases) {
    SCOPED_TRACE(std::string(to_string(p.padding)) + " " + std::string(algorithm(p.digest).name));
    for (const std::size_t size :
         {std::size_t{0}, std::size_t{1}, std::size_t{32}, std::size_t{190}}) {
      const ByteVector message(size, static_cast<std::uint8_t>(size + 1));
      ByteVector out(kBytes, 0xee);
      std::size_t length = 0;
      ASSERT_EQ(
          rsa_padding::decode_encryption(p, raw(true, openssl_encrypt(p, message)), out, length),
          ErrorCode::ok);
      EXPECT_EQ(ByteVector(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(length)),
                message);
      // Ours, decrypted by OpenSSL's raw private operation and our decoding
      // (OpenSSL's own decoding is exercised by the provider's tests).
      ByteVector em(kBytes);
      ASSERT_EQ(rsa_padding::encode_encryption(p, message, em), ErrorCode::ok);
      ASSERT_EQ(rsa_padding::decode_encryption(p, em, out, length), ErrorCode::ok);
      EXPECT_EQ(length, size);
    }
  }
}

TEST(RsaPadding, EveryCorruptEncodingFailsAlikeAndLeavesNothing) {
  for (const RsaPadding padding : {RsaPadding::pkcs1, RsaPadding::oaep}) {
    const RsaParameters p{
        .padding = padding, .digest = AlgorithmId::sha1, .mgf1_digest = AlgorithmId::sha1};
    const ByteVector em = raw(true, openssl_encrypt(p, ByteVector(20, 0x5a)));
    for (std::size_t i = 0; i < em.size(); ++i) {
      ByteVector bad = em;
      bad[i] ^= 0x80;
      ByteVector out(kBytes, 0xee);
      std::size_t length = 99;
      const ErrorCode s = rsa_padding::decode_encryption(p, bad, out, length);
      // PKCS#1 v1.5 guards only its frame (00 02 ... 00): a flipped padding or
      // message byte still decodes. OAEP's every byte feeds its check.
      if (padding == RsaPadding::pkcs1 && i >= 2 && i != em.size() - 21) continue;
      EXPECT_EQ(s, ErrorCode::decryption_failed) << to_string(padding) << " byte " << i;
      EXPECT_EQ(length, 0u);
      EXPECT_EQ(out, ByteVector(kBytes, 0)) << "byte " << i;
    }
  }
}

}  // namespace
}  // namespace cryptoaccel
