// Regression tests for the EVP contract that applications rely on (issue
// 14): each runs the same calls on OpenSSL's default provider and on
// cryptoaccel and compares every return value and output byte. Each failed
// on d015720: EVP_Cipher's result (OpenSSH), re-init without key or IV,
// IV handling the default refuses, tlsivfixed -1 (OpenSSH's GCM set-up),
// streaming AEAD (CMS, Python), HMAC over digests no driver offers.
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstring>

#include "contract_fixture.hpp"

namespace {

const Bytes kKey32(32, 0x42), kIv16(16, 0x24), kData(100, 0x5a);

// OpenSSH's aes256-gcm@openssh.com: the whole IV through tlsivfixed -1,
// IV_GEN per packet, AAD and payload through EVP_Cipher, EVP_Cipher(NULL)
// as final. A forged tag must give -1, which is all OpenSSH checks.
void openssh_gcm_packet(EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t, bool forge) {
  Bytes iv(12, 0x11), tag(16), aad(4, 0x01), ct(kData.size()), pt(kData.size());
  unsigned char last[1];
  t.add(EVP_CipherInit_ex2(ctx, c, kKey32.data(), nullptr, 1, nullptr));
  t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, -1, iv.data()));
  t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_IV_GEN, 1, last));
  t.add(EVP_Cipher(ctx, nullptr, aad.data(), 4));
  t.add(EVP_Cipher(ctx, ct.data(), kData.data(), static_cast<unsigned>(kData.size())));
  t.add(EVP_Cipher(ctx, nullptr, nullptr, 0));
  t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag.data()));
  t.add(ct.data(), ct.size());
  t.add(tag.data(), tag.size());
  if (forge) tag[0] ^= 1;
  t.add(EVP_CipherInit_ex2(ctx, c, kKey32.data(), nullptr, 0, nullptr));
  t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, -1, iv.data()));
  t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_IV_GEN, 1, last));
  t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, tag.data()));
  t.add(EVP_Cipher(ctx, nullptr, aad.data(), 4));
  t.add(EVP_Cipher(ctx, pt.data(), ct.data(), static_cast<unsigned>(ct.size())));
  t.add(EVP_Cipher(ctx, nullptr, nullptr, 0));
}

TEST_F(Contract, EvpCipherOnGcmGivesLengthsAndMinusOneOnAForgery) {
  for (bool forge : {false, true}) {
    auto [a, b] = both("AES-256-GCM", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
      openssh_gcm_packet(ctx, c, t, forge);
    });
    EXPECT_EQ(a, b) << where_bytes_differ(a, b) << "forged " << forge;
    EXPECT_EQ(a.results.back(), forge ? -1 : 0);
  }
}

TEST_F(Contract, EvpCipherOnBlockCiphersGivesByteCounts) {
  for (const char* name : {"AES-256-CBC", "AES-256-CTR", "AES-256-ECB"}) {
    for (bool forge : {false, true}) {
      auto [a, b] = both(name, [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
        const bool aead = false;
        const unsigned n = 96;
        Bytes out(n + 16), back(n + 16), tag(16);
        t.add(EVP_CipherInit_ex2(ctx, c, kKey32.data(), kIv16.data(), 1, nullptr));
        if (aead) t.add(EVP_Cipher(ctx, nullptr, kIv16.data(), 5));
        t.add(EVP_Cipher(ctx, out.data(), kData.data(), n));
        if (aead) {
          t.add(EVP_Cipher(ctx, nullptr, nullptr, 0));
          t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()));
          if (forge) tag[5] ^= 1;
        }
        t.add(EVP_CipherInit_ex2(ctx, c, kKey32.data(), kIv16.data(), 0, nullptr));
        if (aead) {
          t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag.data()));
          t.add(EVP_Cipher(ctx, nullptr, kIv16.data(), 5));
        }
        t.add(EVP_Cipher(ctx, back.data(), out.data(), n));
        if (aead) t.add(EVP_Cipher(ctx, nullptr, nullptr, 0));
        t.add(out.data(), n);
        t.add(tag.data(), tag.size());
        if (!forge || !aead) t.add(back.data(), n);
      });
      EXPECT_EQ(a, b) << where_bytes_differ(a, b) << name << " forged " << forge;
      EXPECT_EQ(a.results[1], 96) << name;
    }
  }
}

// EVP_Cipher(ctx, NULL, NULL, 0) ends a ChaCha20-Poly1305 message: it
// makes the tag and checks it (-1 on a forgery), as OpenSSL 3.0.22 does.
// OpenSSL 3.0.19's default provider does neither (its tag reads as zeros
// and a forgery passes): here cryptoaccel differs from it on purpose.
TEST_F(Contract, EvpCipherFinalOnChaCha20Poly1305MakesAndChecksTheTag) {
  CipherPtr mine(ours("ChaCha20-Poly1305"), &EVP_CIPHER_free);
  const Sealed sealed = seal(mine.get(), kKey32, Bytes(kIv16.begin(), kIv16.begin() + 12),
                             Bytes(kIv16.begin(), kIv16.begin() + 5), kData);
  ASSERT_TRUE(sealed.ok);
  for (bool forge : {false, true}) {
    auto ctx = new_ctx();
    Bytes out(kData.size()), back(kData.size()), tag(16);
    EVP_CipherInit_ex2(ctx.get(), mine.get(), kKey32.data(), kIv16.data(), 1, nullptr);
    EXPECT_EQ(EVP_Cipher(ctx.get(), nullptr, kIv16.data(), 5), 5);
    EXPECT_EQ(EVP_Cipher(ctx.get(), out.data(), kData.data(), 100), 100);
    EXPECT_EQ(EVP_Cipher(ctx.get(), nullptr, nullptr, 0), 0);
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
    EXPECT_EQ(out, sealed.ct);
    EXPECT_EQ(tag, sealed.tag);
    if (forge) tag[0] ^= 1;
    EVP_CipherInit_ex2(ctx.get(), mine.get(), kKey32.data(), kIv16.data(), 0, nullptr);
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, tag.data()), 1);
    EXPECT_EQ(EVP_Cipher(ctx.get(), nullptr, kIv16.data(), 5), 5);
    EXPECT_EQ(EVP_Cipher(ctx.get(), back.data(), out.data(), 100), 100);
    EXPECT_EQ(EVP_Cipher(ctx.get(), nullptr, nullptr, 0), forge ? -1 : 0);
  }
}

// Re-init with neither key nor IV keeps the running state: CTR continues
// its counter (no keystream twice), GCM continues the same message (no
// second message under the same nonce).
// CMS and PKCS#7 write a cipher's AlgorithmIdentifier from
// EVP_CIPHER_param_to_asn1(), which reads the IV through
// EVP_CIPHER_CTX_original_iv(): an octet-pointer parameter. Answered as an
// octet string only, that call failed and `openssl cms -encrypt` wrote 16
// bytes of garbage as the IV, undecryptable by anyone (found on OpenSSL
// 3.5, and on 3.0 with direct = no). EVP_CIPHER_CTX_iv() asks "updated-iv"
// the same way.
TEST_F(Contract, IvPointersGiveTheAlgorithmIdentifierItsIv) {
  for (const char* name : {"AES-256-CBC", "AES-128-CTR", "AES-128-CBC"}) {
    const auto [a, b] = both(name, [](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
      t.add(EVP_EncryptInit_ex2(ctx, c, kKey32.data(), kIv16.data(), nullptr));
      // What EVP_CIPHER_CTX_original_iv() and EVP_CIPHER_CTX_iv() (deprecated,
      // still what libcrypto uses) ask: the IVs as octet pointers.
      auto pointed = [&](const char* param) {
        void* at = nullptr;
        OSSL_PARAM params[] = {OSSL_PARAM_construct_octet_ptr(param, &at, 16),
                               OSSL_PARAM_construct_end()};
        t.add(EVP_CIPHER_CTX_get_params(ctx, params));
        t.add(at != nullptr);
        if (at != nullptr) t.add(static_cast<const unsigned char*>(at), 16);
      };
      pointed(OSSL_CIPHER_PARAM_IV);
      Bytes out(kData.size() + 16);
      int n = 0;
      t.add(EVP_EncryptUpdate(ctx, out.data(), &n, kData.data(), 40));
      pointed(OSSL_CIPHER_PARAM_IV);
      pointed(OSSL_CIPHER_PARAM_UPDATED_IV);
      ASN1_TYPE* type = ASN1_TYPE_new();
      t.add(EVP_CIPHER_param_to_asn1(ctx, type));
      unsigned char der[64];
      unsigned char* end = der;
      const int len = i2d_ASN1_TYPE(type, &end);
      t.add(len);
      if (len > 0) t.add(der, static_cast<std::size_t>(len));
      ASN1_TYPE_free(type);
    });
    EXPECT_EQ(a, b) << name << where_bytes_differ(a, b);
  }
}

TEST_F(Contract, ReinitWithoutKeyOrIvKeepsTheStream) {
  for (const char* name : {"AES-128-CTR", "AES-256-GCM", "ChaCha20-Poly1305", "AES-128-CBC"}) {
    auto [a, b] = both(name, [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
      Bytes out(200), tag(16);
      int n = 0;
      const Bytes key(static_cast<std::size_t>(EVP_CIPHER_get_key_length(c)), 7);
      t.add(EVP_EncryptInit_ex2(ctx, c, key.data(), kIv16.data(), nullptr));
      t.add(EVP_EncryptUpdate(ctx, out.data(), &n, kData.data(), 20));
      t.add(n);
      t.add(EVP_EncryptInit_ex2(ctx, nullptr, nullptr, nullptr, nullptr));
      t.add(EVP_EncryptUpdate(ctx, out.data() + 20, &n, kData.data(), 20));
      t.add(n);
      t.add(EVP_EncryptFinal_ex(ctx, out.data() + 40, &n));
      t.add(n);
      if (EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER)
        t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()));
      t.add(out.data(), out.size());
      t.add(tag.data(), tag.size());
    });
    EXPECT_EQ(a, b) << where_bytes_differ(a, b) << name;
  }
}

// IV handling OpenSSL refuses: a fixed IV that leaves no room for the
// invocation field, an IV length changed after the IV was given, XTS with
// no tweak, TLS AAD whose length field is too short.
TEST_F(Contract, IvHandlingTheDefaultRefusesIsRefused) {
  for (std::size_t ivlen : {4, 7, 12, 16}) {
    auto [a, b] = both("AES-128-GCM", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
      Bytes iv(ivlen, 3), gen(16);
      t.add(EVP_EncryptInit_ex2(ctx, c, nullptr, nullptr, nullptr));
      t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(ivlen), nullptr));
      t.add(EVP_EncryptInit_ex2(ctx, nullptr, kKey32.data(), nullptr, nullptr));
      t.add(
          EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, static_cast<int>(ivlen), iv.data()));
      t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, 4, iv.data()));
    });
    EXPECT_EQ(a, b) << where_bytes_differ(a, b) << "ivlen " << ivlen;
  }
  auto [a, b] = both("AES-128-GCM", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
    Bytes out(64);
    int n = 0;
    t.add(EVP_EncryptInit_ex2(ctx, c, kKey32.data(), kIv16.data(), nullptr));
    t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 16, nullptr));
    t.add(EVP_EncryptUpdate(ctx, out.data(), &n, kData.data(), 32));
  });
  EXPECT_EQ(a, b) << where_bytes_differ(a, b) << "IV length changed after the IV";
  EXPECT_EQ(a.results.back(), 0);
  auto [x, y] = both("AES-128-XTS", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
    Bytes out(64);
    int n = 0;
    t.add(EVP_EncryptInit_ex2(ctx, c, kKey32.data(), nullptr, nullptr));
    t.add(EVP_EncryptUpdate(ctx, out.data(), &n, kData.data(), 32));
  });
  EXPECT_EQ(x, y) << where_bytes_differ(x, y) << "XTS without a tweak";
  EXPECT_EQ(x.results.back(), 0);
  for (bool encrypt : {true, false}) {
    for (unsigned field : {0u, 7u, 8u, 23u, 24u, 100u}) {
      auto [p, q] = both("AES-128-GCM", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
        Bytes aad(13, 0);
        aad[11] = static_cast<unsigned char>(field >> 8);
        aad[12] = static_cast<unsigned char>(field);
        t.add(EVP_CipherInit_ex2(ctx, c, kKey32.data(), nullptr, encrypt, nullptr));
        t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad.data()));
      });
      EXPECT_EQ(p, q) << where_bytes_differ(p, q) << "TLS AAD length " << field
                      << (encrypt ? " encrypt" : " decrypt");
    }
  }
}

// CMS and Python's `cryptography` stream: AAD, the payload in pieces, the
// tag just before final. Plaintext leaves update; final checks the tag.
TEST_F(Contract, StreamingAeadDecryptionAndTagAfterTheCiphertext) {
  for (const char* name : {"AES-128-GCM", "AES-256-GCM", "ChaCha20-Poly1305"}) {
    for (int forge = 0; forge < 2; ++forge) {
      for (bool tag_first : {false, true}) {
        auto [a, b] = both(name, [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
          const Bytes key(static_cast<std::size_t>(EVP_CIPHER_get_key_length(c)), 9);
          Bytes ct(5000), pt(5000), tag(16);
          Bytes big(5000, 0x33);
          int n = 0, done = 0;
          t.add(EVP_EncryptInit_ex2(ctx, c, key.data(), kIv16.data(), nullptr));
          t.add(EVP_EncryptUpdate(ctx, nullptr, &n, kIv16.data(), 7));
          for (int piece : {1000, 1, 2999, 1000}) {
            t.add(EVP_EncryptUpdate(ctx, ct.data() + done, &n, big.data() + done, piece));
            done += n;
          }
          t.add(EVP_EncryptFinal_ex(ctx, ct.data() + done, &n));
          t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()));
          if (forge) tag[15] ^= 1;
          t.add(EVP_DecryptInit_ex2(ctx, c, key.data(), kIv16.data(), nullptr));
          if (tag_first) t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag.data()));
          t.add(EVP_DecryptUpdate(ctx, nullptr, &n, kIv16.data(), 7));
          done = 0;
          for (int piece : {4096, 903, 1}) {
            t.add(EVP_DecryptUpdate(ctx, pt.data() + done, &n, ct.data() + done, piece));
            t.add(n);
            done += n;
          }
          if (!tag_first) t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag.data()));
          t.add(EVP_DecryptFinal_ex(ctx, pt.data() + done, &n));
          t.add(ct.data(), ct.size());
          t.add(tag.data(), tag.size());
          t.add(pt.data(), pt.size());
        });
        EXPECT_EQ(a, b) << where_bytes_differ(a, b) << name << " forged " << forge << " tag first "
                        << tag_first;
        EXPECT_EQ(a.results.back(), forge ? 0 : 1);
      }
    }
  }
}

// An AES-GCM encryption whose first piece went whole to a driver goes on
// in OpenSSL's implementation from a stand-in rebuilt from the tag: every
// nonce, AAD and piece length, whole blocks or not, gives OpenSSL's bytes.
TEST_F(Contract, GcmEncryptionGoesOnAfterAWholeFirstPieceOfEveryLength) {
  for (const char* name : {"AES-128-GCM", "AES-192-GCM", "AES-256-GCM"}) {
    for (const std::size_t nonce_len : {12, 16, 8, 1, 60}) {
      for (const int aad_len : {0, 5, 16, 33}) {
        for (const int first : {1, 15, 16, 17, 32, 100, 4097}) {
          for (const int second : {1, 16, 31}) {
            auto [a, b] = both(name, [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
              const Bytes key(static_cast<std::size_t>(EVP_CIPHER_get_key_length(c)), 0x5c);
              Bytes nonce(nonce_len, 0xa7), aad(static_cast<std::size_t>(aad_len), 0x3e);
              Bytes plain(static_cast<std::size_t>(first + second + 3)), out(plain.size() + 16),
                  tag(16);
              for (std::size_t i = 0; i < plain.size(); ++i)
                plain[i] = static_cast<unsigned char>(i * 7 + 1);
              std::size_t ivlen = nonce_len;
              OSSL_PARAM length[] = {
                  OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &ivlen),
                  OSSL_PARAM_construct_end()};
              int n = 0, done = 0;
              t.add(EVP_EncryptInit_ex2(ctx, c, nullptr, nullptr, length));
              t.add(EVP_EncryptInit_ex2(ctx, nullptr, key.data(), nonce.data(), nullptr));
              if (aad_len != 0) t.add(EVP_EncryptUpdate(ctx, nullptr, &n, aad.data(), aad_len));
              for (const int piece : {first, second, 3}) {
                t.add(EVP_EncryptUpdate(ctx, out.data() + done, &n, plain.data() + done, piece));
                done += n;
              }
              t.add(EVP_EncryptFinal_ex(ctx, out.data() + done, &n));
              t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()));
              t.add(out.data(), static_cast<std::size_t>(done));
              t.add(tag.data(), tag.size());
            });
            ASSERT_EQ(a, b) << where_bytes_differ(a, b) << name << " nonce " << nonce_len << " AAD "
                            << aad_len << " pieces " << first << ", " << second;
          }
        }
      }
    }
  }
}

// A length above the IV's is refused rather than copied past the IV.
TEST_F(Contract, FixedIvLongerThanTheIvIsRefused) {
  CipherPtr mine(ours("AES-128-GCM"), &EVP_CIPHER_free);
  auto ctx = new_ctx();
  Bytes iv(200, 1);
  ASSERT_EQ(EVP_DecryptInit_ex2(ctx.get(), mine.get(), kKey32.data(), nullptr, nullptr), 1);
  EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IV_FIXED, 13, iv.data()), 0);
  EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IV_FIXED, 200, iv.data()), 0);
}

// HMAC is fetched from cryptoaccel whatever the digest: those no driver
// offers are served by OpenSSL's own HMAC, with the same answers.
// OpenSSL 3.0 copies a TLS record's 8-byte explicit IV to the end of the
// IV: with a shorter IV it writes over its context's direction, and a
// forged record then "decrypts". Every way to get there is refused.
TEST_F(Contract, TlsRecordsOnAnIvShorterThanTheirExplicitPartAreRefused) {
  CipherPtr mine(ours("AES-128-GCM"), &EVP_CIPHER_free);
  Bytes aad = {0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3, 0, 56};
  for (std::size_t ivlen = 1; ivlen < 8; ++ivlen) {
    auto ctx = new_ctx();
    OSSL_PARAM length[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &ivlen),
                           OSSL_PARAM_construct_end()};
    ASSERT_EQ(EVP_DecryptInit_ex2(ctx.get(), mine.get(), nullptr, nullptr, length), 1) << ivlen;
    ASSERT_EQ(EVP_DecryptInit_ex2(ctx.get(), nullptr, kKey32.data(), nullptr, nullptr), 1);
    Bytes iv(ivlen, 1);
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IV_FIXED, -1, iv.data()), 0) << ivlen;
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad.data()), 0) << ivlen;
  }
  // A record set-up on a 12-byte IV, then the IV shortened: refused too,
  // by set_params and by an init's IV, and "tlsivgen" on the short IV.
  auto ctx = new_ctx();
  Bytes iv(12, 1), record(56, 0x33);
  ASSERT_EQ(EVP_DecryptInit_ex2(ctx.get(), mine.get(), kKey32.data(), nullptr, nullptr), 1);
  ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IV_FIXED, -1, iv.data()), 1);
  EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, 4, nullptr), 0);
  std::size_t four = 4;
  OSSL_PARAM length[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &four),
                         OSSL_PARAM_construct_end()};
  EXPECT_EQ(EVP_DecryptInit_ex2(ctx.get(), nullptr, nullptr, nullptr, length), 0);
  ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad.data()), 16);
  EXPECT_EQ(EVP_Cipher(ctx.get(), record.data(), record.data(), record.size()), -1)
      << "a forged record";
}

// A decryption whose init was refused (a tag of a bad length among its
// parameters) has no tag: its final fails, as any decryption without one.
TEST_F(Contract, ChaCha20Poly1305DecryptionAfterARefusedInitNeedsItsTag) {
  CipherPtr mine(ours("ChaCha20-Poly1305"), &EVP_CIPHER_free);
  for (std::size_t taglen : {0, 17}) {
    auto ctx = new_ctx();
    Bytes out(64), tag(taglen + 1, 9), forged(64, 0x41);
    int n = 0;
    ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), mine.get(), kKey32.data(), kIv16.data(), nullptr), 1);
    ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), out.data(), &n, kData.data(), 64), 1);
    ASSERT_EQ(EVP_EncryptFinal_ex(ctx.get(), out.data(), &n), 1);
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag.data(), taglen),
        OSSL_PARAM_construct_end()};
    EXPECT_EQ(EVP_DecryptInit_ex2(ctx.get(), nullptr, kKey32.data(), kIv16.data(), params), 0);
    EXPECT_EQ(EVP_DecryptUpdate(ctx.get(), out.data(), &n, forged.data(), 64), 1);
    EXPECT_EQ(EVP_DecryptFinal_ex(ctx.get(), out.data(), &n), 0) << "tag of " << taglen;
    ERR_clear_error();
  }
}

// An init that brings a key length the cipher cannot take: EVP hands the
// length to the context before the init (the fix of CVE-2023-5363).
// OpenSSL's fixed-length ciphers leave it unread and take the key; GCM,
// XTS, ChaCha20 and ChaCha20-Poly1305 refuse it, and the init never runs.
// Either way a later init without it makes the context whole again.
//
// One difference is deliberate: after that refusal OpenSSL's
// ChaCha20-Poly1305 encrypts under the all-zero key and nonce it was never
// given; cryptoaccel refuses the update, as OpenSSL's ChaCha20 does.
void keyed_init_with_a_wrong_key_length(EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
  const Bytes key(static_cast<std::size_t>(EVP_CIPHER_get_key_length(c)), 0x17);
  const Bytes other(key.size(), 0x71), iv(16, 0x24);
  Bytes out(200), tag(16);
  int n = 0;
  std::size_t wrong_keylen = key.size() + 1;
  const OSSL_PARAM wrong[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_KEYLEN, &wrong_keylen),
                              OSSL_PARAM_construct_end()};
  t.add(EVP_EncryptInit_ex2(ctx, c, key.data(), iv.data(), wrong));
  t.add(EVP_EncryptUpdate(ctx, out.data(), &n, kData.data(), 32));
  t.add(n);
  ERR_clear_error();
  t.add(EVP_EncryptInit_ex2(ctx, nullptr, other.data(), iv.data(), nullptr));
  t.add(EVP_EncryptUpdate(ctx, out.data() + 40, &n, kData.data(), 32));
  t.add(n);
  t.add(EVP_EncryptFinal_ex(ctx, out.data() + 80, &n));
  t.add(n);
  if (EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER)
    t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()));
  ERR_clear_error();
  t.add(out.data(), out.size());
  t.add(tag.data(), tag.size());
}

TEST_F(Contract, AKeyLengthTheCipherCannotTakeIsAsTheDefaultTreatsIt) {
  for (const char* name : {"AES-128-CBC", "AES-256-CTR", "AES-128-ECB", "DES-EDE3-CBC",
                           "AES-256-GCM", "AES-128-XTS", "ChaCha20"}) {
    auto [a, b] = both(name, keyed_init_with_a_wrong_key_length);
    EXPECT_EQ(a, b) << where_bytes_differ(a, b) << " " << name;
  }
}

TEST_F(Contract, ChaCha20Poly1305NeverEncryptsUnderAKeyItWasNotGiven) {
  auto [a, b] = both("ChaCha20-Poly1305", keyed_init_with_a_wrong_key_length);
  ASSERT_EQ(a.results.size(), b.results.size());
  EXPECT_EQ(a.results[0], 0) << "the init is refused";
  EXPECT_EQ(b.results[0], 0);
  EXPECT_EQ(a.results[1], 0) << "no update under a key never given";
  // Whatever the running OpenSSL does there, the rest is the same.
  EXPECT_EQ(std::vector<long>(a.results.begin() + 3, a.results.end()),
            std::vector<long>(b.results.begin() + 3, b.results.end()));
  EXPECT_TRUE(std::equal(a.bytes.begin() + 40, a.bytes.end(), b.bytes.begin() + 40));
  if (b.results[1] == 1) {
    // What OpenSSL wrote is ChaCha20-Poly1305 under the zero key and nonce.
    CipherPtr ref(theirs("ChaCha20-Poly1305"), &EVP_CIPHER_free);
    auto ctx = new_ctx();
    const Bytes zeros(32, 0);
    Bytes out(32);
    int n = 0;
    ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), ref.get(), zeros.data(), zeros.data(), nullptr), 1);
    ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), out.data(), &n, kData.data(), 32), 1);
    EXPECT_TRUE(std::equal(out.begin(), out.end(), b.bytes.begin()));
  }
}

TEST_F(Contract, HmacOverDigestsNoDriverOffers) {
  for (const char* digest :
       {"SHA3-256", "SHA2-512/256", "SHA2-512/224", "BLAKE2B-512", "SM3", "SHA2-256"}) {
    Bytes results[2];
    int i = 0;
    for (auto* libctx : {ours_->ctx, theirs_->ctx}) {
      EVP_MAC* mac = EVP_MAC_fetch(libctx, "HMAC", i == 0 ? "provider=cryptoaccel" : nullptr);
      ASSERT_NE(mac, nullptr);
      EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
      OSSL_PARAM params[] = {
          OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, const_cast<char*>(digest), 0),
          OSSL_PARAM_END};
      Bytes out(64);
      std::size_t n = 0;
      EXPECT_EQ(EVP_MAC_init(ctx, kKey32.data(), 20, params), 1) << digest << openssl_errors();
      EXPECT_EQ(EVP_MAC_update(ctx, kData.data(), kData.size()), 1);
      EVP_MAC_CTX* copy = EVP_MAC_CTX_dup(ctx);
      EXPECT_EQ(EVP_MAC_final(copy, out.data(), &n, out.size()), 1);
      out.resize(n);
      results[i++] = out;
      EVP_MAC_CTX_free(copy);
      EVP_MAC_CTX_free(ctx);
      EVP_MAC_free(mac);
    }
    EXPECT_EQ(results[0], results[1]) << digest;
  }
}

// ChaCha20's "updated-iv" is its counter and nonce with the counter on the
// next block to generate, a block started counting as generated: what
// OpenSSL 3.6's and 4.0's ChaCha20 answer (chacha20_get_ctx_params) and their
// evpciph_chacha.txt check as NextIV. OpenSSL 3.0's does not answer it, so
// this runs on the provider's own ChaCha20 only (not the direct path, which
// is OpenSSL's: provider.contract.sessions).
TEST_F(Contract, ChaCha20UpdatedIvIsTheNextBlockAndTheNonce) {
  if (direct()) GTEST_SKIP() << "the direct path answers as this OpenSSL's ChaCha20 does";
  if (OpenSSL_version_num() < 0x30600000UL)
    GTEST_SKIP() << "OpenSSL before 3.6 does not answer ChaCha20's updated-iv (the differential "
                    "test checks that ours leaves the buffer alone there too)";
  CipherPtr c(ours("ChaCha20"), &EVP_CIPHER_free);
  ASSERT_NE(c, nullptr);
  CtxPtr ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  const Bytes key(32, 0);
  Bytes iv(16, 0);
  iv[0] = 1;   // block counter 1 (little-endian)
  iv[15] = 2;  // the nonce's last byte
  ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), c.get(), key.data(), iv.data(), nullptr), 1);
  auto updated = [&] {
    Bytes out(16, 0xee);
    EXPECT_EQ(EVP_CIPHER_CTX_get_updated_iv(ctx.get(), out.data(), out.size()), 1);
    return out;
  };
  auto expected = [&](std::uint8_t counter) {
    Bytes e = iv;
    e[0] = counter;
    return e;
  };
  EXPECT_EQ(updated(), expected(1));
  Bytes out(200);
  int n = 0;
  ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), out.data(), &n, kData.data(), 64), 1);
  EXPECT_EQ(updated(), expected(2)) << "one whole block";
  ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), out.data(), &n, kData.data(), 36), 1);
  EXPECT_EQ(updated(), expected(3)) << "a block started";
  ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), out.data(), &n, kData.data(), 28), 1);
  EXPECT_EQ(updated(), expected(3)) << "that block finished";
}

// No digest, or a key given as a NULL parameter: refused, as OpenSSL does.
TEST_F(Contract, HmacWithoutDigestOrWithANullKeyIsRefused) {
  for (int i = 0; i < 2; ++i) {
    EVP_MAC* mac = EVP_MAC_fetch(i == 0 ? ours_->ctx : theirs_->ctx, "HMAC",
                                 i == 0 ? "provider=cryptoaccel" : nullptr);
    ASSERT_NE(mac, nullptr);
    EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
    EXPECT_EQ(EVP_MAC_init(ctx, kKey32.data(), 16, nullptr), 0) << (i == 0 ? "ours" : "theirs");
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, const_cast<char*>("SHA256"), 0),
        OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, nullptr, 0), OSSL_PARAM_END};
    EXPECT_EQ(EVP_MAC_CTX_set_params(ctx, params), 0) << (i == 0 ? "ours" : "theirs");
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    ERR_clear_error();
  }
}

// EVP_DecryptInit_ex2 with the tag among its parameters (OpenSSL 4.0's
// evp_extra_test does it): the tag counts as given, and final checks it.
TEST_F(Contract, ChaCha20Poly1305TagGivenWithTheKeyIsChecked) {
  for (bool forge : {false, true}) {
    const auto [a,
                b] = both("ChaCha20-Poly1305", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
      Bytes ct(kData.size()), pt(kData.size()), tag(16);
      int n = 0;
      t.add(EVP_EncryptInit_ex2(ctx, c, kKey32.data(), kIv16.data(), nullptr));
      t.add(EVP_EncryptUpdate(ctx, ct.data(), &n, kData.data(), static_cast<int>(kData.size())));
      t.add(EVP_EncryptFinal_ex(ctx, ct.data(), &n));
      t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()));
      if (forge) tag[3] ^= 1;
      OSSL_PARAM params[] = {
          OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag.data(), tag.size()),
          OSSL_PARAM_construct_end()};
      t.add(EVP_DecryptInit_ex2(ctx, c, kKey32.data(), kIv16.data(), params));
      t.add(EVP_DecryptUpdate(ctx, pt.data(), &n, ct.data(), 30));
      t.add(EVP_DecryptUpdate(ctx, pt.data() + 30, &n, ct.data() + 30,
                              static_cast<int>(ct.size() - 30)));
      t.add(EVP_DecryptFinal_ex(ctx, pt.data(), &n));
      t.add(pt.data(), pt.size());
    });
    EXPECT_EQ(a, b) << (forge ? "forged" : "genuine") << where_bytes_differ(a, b);
  }
}

// After final, another message under the same nonce: refused where the
// running OpenSSL refuses it, and a new nonce starts one.
TEST_F(Contract, ChaCha20Poly1305NonceAfterFinalAsTheRunningOpenSsl) {
  const auto [a, b] = both("ChaCha20-Poly1305", [](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
    Bytes out(kData.size());
    int n = 0;
    t.add(EVP_EncryptInit_ex2(ctx, c, kKey32.data(), kIv16.data(), nullptr));
    t.add(EVP_EncryptUpdate(ctx, out.data(), &n, kData.data(), 40));
    t.add(EVP_EncryptFinal_ex(ctx, out.data(), &n));
    t.add(EVP_EncryptUpdate(ctx, out.data(), &n, kData.data(), 40));            // the same nonce
    t.add(EVP_EncryptInit_ex2(ctx, nullptr, kKey32.data(), nullptr, nullptr));  // key only
    t.add(EVP_EncryptUpdate(ctx, out.data(), &n, kData.data(), 40));
    const Bytes nonce(12, 0x77);
    t.add(EVP_EncryptInit_ex2(ctx, nullptr, nullptr, nonce.data(), nullptr));
    t.add(EVP_EncryptUpdate(ctx, out.data(), &n, kData.data(), 40));
    t.add(out.data(), static_cast<std::size_t>(n));
    t.add(EVP_EncryptFinal_ex(ctx, out.data(), &n));
  });
  EXPECT_EQ(a, b) << where_bytes_differ(a, b);
}

// The IV of a GCM encryption given none, read before the first update:
// made there and then where the running OpenSSL makes it, and then the one
// the message uses.
TEST_F(Contract, GcmIvReadBeforeTheFirstUpdateAsTheRunningOpenSsl) {
  const auto [a, b] = both("AES-256-GCM", [](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
    Bytes first(12), later(12), out(kData.size());
    int n = 0;
    t.add(EVP_EncryptInit_ex2(ctx, c, kKey32.data(), nullptr, nullptr));
    const int read = EVP_CIPHER_CTX_get_original_iv(ctx, first.data(), first.size());
    t.add(read);
    t.add(EVP_EncryptUpdate(ctx, out.data(), &n, kData.data(), 40));
    t.add(EVP_CIPHER_CTX_get_original_iv(ctx, later.data(), later.size()));
    t.add(EVP_CIPHER_CTX_get_updated_iv(ctx, later.data(), later.size()));
    if (read == 1) t.add(first == later);
  });
  EXPECT_EQ(a, b);
}

// A direction switch in mid-message by an init without key or IV: the
// message goes on in the new direction from the IV last given (CBC, CTR's
// next block, an AEAD's tag over all of it), as in OpenSSL. With the tag
// given, ChaCha20-Poly1305 finishes as OpenSSL's does; without it, the
// decryption is refused (the documented no-tag difference).
void switch_direction_mid_message(EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t, int first,
                                  bool explicit_direction) {
  const Bytes key(static_cast<std::size_t>(EVP_CIPHER_get_key_length(c)), 0x17), iv(16, 0x24);
  const bool aead = (EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;
  Bytes out(200), tag(16, 0);
  int n = 0;
  t.add(EVP_CipherInit_ex2(ctx, c, key.data(), iv.data(), first, nullptr));
  if (aead) t.add(EVP_CipherUpdate(ctx, nullptr, &n, kData.data(), 5));
  t.add(EVP_CipherUpdate(ctx, out.data(), &n, kData.data(), 16));
  t.add(n);
  t.add(EVP_CipherInit_ex2(ctx, nullptr, nullptr, nullptr, explicit_direction ? 1 - first : -1,
                           nullptr));
  if (aead) t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag.data()));
  t.add(EVP_CipherUpdate(ctx, out.data() + 40, &n, kData.data(), 16));
  t.add(n);
  t.add(EVP_CipherFinal_ex(ctx, out.data() + 80, &n));
  t.add(n);
  if (aead) t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()));
  ERR_clear_error();
  t.add(out.data(), out.size());
  t.add(tag.data(), tag.size());
}

TEST_F(Contract, ADirectionSwitchInMidMessageIsAsTheDefault) {
  for (const char* name : {"AES-256-GCM", "ChaCha20-Poly1305", "AES-256-CTR", "ChaCha20"})
    for (int first : {0, 1})
      for (bool explicit_direction : {false, true}) {
        auto [a, b] = both(name, [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
          switch_direction_mid_message(ctx, c, t, first, explicit_direction);
        });
        EXPECT_EQ(a, b) << where_bytes_differ(a, b) << " " << name << " first " << first;
      }
}

// A block cipher's decryption switched to encryption without a new key:
// OpenSSL's AES keeps the decryption key schedule and so "encrypts" with
// it, which is no encryption under the key at all. The direct path is
// OpenSSL's code and does the same where it takes the cipher (on 3.5 and
// later not AES-CBC or -ECB: docs/provider.md); the sessions encrypt under
// the key.
TEST_F(Contract, ABlockCipherSwitchedToEncryptionWithoutAKeyEncryptsUnderIt) {
  for (const char* name : {"AES-128-CBC", "AES-128-ECB"}) {
    auto [a, b] = both(name, [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
      switch_direction_mid_message(ctx, c, t, 0, true);
    });
    EXPECT_EQ(a.results, b.results) << name;
    CipherPtr ref(theirs(name), &EVP_CIPHER_free);
    auto ctx = new_ctx();
    const Bytes key(16, 0x17), iv(16, 0x24);
    Bytes expected(32);
    int n = 0, m = 0;
    ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), ref.get(), key.data(), iv.data(), nullptr), 1);
    ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), expected.data(), &n, kData.data(), 16), 1);
    ASSERT_EQ(EVP_EncryptFinal_ex(ctx.get(), expected.data() + n, &m), 1);
    // The update wrote at 40, the final at 80 (switch_direction_mid_message).
    Bytes mine(a.bytes.begin() + 40, a.bytes.begin() + 40 + n);
    mine.insert(mine.end(), a.bytes.begin() + 80, a.bytes.begin() + 80 + m);
    const bool encrypted_under_the_key = mine == Bytes(expected.begin(), expected.begin() + n + m);
    if (direct())
      EXPECT_TRUE(a == b || encrypted_under_the_key) << where_bytes_differ(a, b) << " " << name;
    else
      EXPECT_TRUE(encrypted_under_the_key) << name;
  }
}

// ChaCha20-Poly1305 AAD after the payload has begun: hashed in where it
// comes, or refused, as the running OpenSSL does; a decryption with the tag
// given last (the sessions' own Poly1305) the same as an encryption.
TEST_F(Contract, ChaCha20Poly1305AadAfterThePayloadAsTheRunningOpenSsl) {
  const auto [a, b] = both("ChaCha20-Poly1305", [](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
    Bytes ct(64), pt(64), tag(16);
    int n = 0;
    t.add(EVP_EncryptInit_ex2(ctx, c, kKey32.data(), kIv16.data(), nullptr));
    t.add(EVP_EncryptUpdate(ctx, nullptr, &n, kData.data(), 5));
    t.add(EVP_EncryptUpdate(ctx, ct.data(), &n, kData.data(), 16));
    t.add(EVP_EncryptUpdate(ctx, nullptr, &n, kData.data() + 5, 7));
    t.add(EVP_EncryptUpdate(ctx, ct.data() + 16, &n, kData.data() + 16, 16));
    t.add(EVP_EncryptFinal_ex(ctx, ct.data() + 32, &n));
    t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()));
    ERR_clear_error();
    t.add(EVP_DecryptInit_ex2(ctx, nullptr, kKey32.data(), kIv16.data(), nullptr));
    t.add(EVP_DecryptUpdate(ctx, nullptr, &n, kData.data(), 5));
    t.add(EVP_DecryptUpdate(ctx, pt.data(), &n, ct.data(), 16));
    t.add(EVP_DecryptUpdate(ctx, nullptr, &n, kData.data() + 5, 7));
    t.add(EVP_DecryptUpdate(ctx, pt.data() + 16, &n, ct.data() + 16, 16));
    t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag.data()));
    t.add(EVP_DecryptFinal_ex(ctx, pt.data() + 32, &n));
    t.add(ct.data(), ct.size());
    t.add(tag.data(), tag.size());
    t.add(pt.data(), pt.size());
  });
  EXPECT_EQ(a, b) << where_bytes_differ(a, b);
}

// EVP_Cipher on a CBC decryption of a length that is not whole blocks:
// OpenSSL decrypts the partial block from a whole block read where it
// starts, past the input; with zeros there (as here) its answer is the
// provider's, which never reads past the input and writes every byte the
// result counts.
TEST_F(Contract, EvpCipherOnACbcDecryptionOfAPartialBlockWritesEveryByteItCounts) {
  for (const char* name : {"AES-128-CBC", "AES-256-CBC", "DES-EDE3-CBC"}) {
    auto [a, b] = both(name, [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
      const Bytes key(static_cast<std::size_t>(EVP_CIPHER_get_key_length(c)), 0x17);
      Bytes in(kData.begin(), kData.begin() + 48);
      std::fill(in.begin() + 40, in.end(), 0);  // what OpenSSL reads past 40 bytes
      Bytes out(48, 0xaa);
      t.add(EVP_CipherInit_ex2(ctx, c, key.data(), kIv16.data(), 0, nullptr));
      t.add(EVP_Cipher(ctx, out.data(), in.data(), 40));
      t.add(out.data(), out.size());
    });
    EXPECT_EQ(a, b) << where_bytes_differ(a, b) << " " << name;
  }
}

// CBC in TLS record mode seals and opens a record in place, padded; a
// record given with another output buffer, or with padding off, is
// refused, as OpenSSL's record code refuses it.
TEST_F(Contract, CbcTlsRecordsAreProcessedInPlaceOnly) {
  for (int variant = 0; variant < 3; ++variant) {
    auto [a, b] = both("AES-128-CBC", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
      unsigned version = 0x303;
      const OSSL_PARAM tls[] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &version),
                                OSSL_PARAM_construct_end()};
      Bytes record(64, 0x33), other(64, 0xaa);
      int n = 0;
      t.add(EVP_CipherInit_ex2(ctx, c, kKey32.data(), kIv16.data(), 1, tls));
      if (variant == 2) t.add(EVP_CIPHER_CTX_set_padding(ctx, 0));
      unsigned char* out = variant == 1 ? other.data() : record.data();
      t.add(EVP_CipherUpdate(ctx, out, &n, record.data(), 38));
      t.add(n);
      t.add(record.data(), record.size());
      t.add(other.data(), other.size());
    });
    EXPECT_EQ(a, b) << where_bytes_differ(a, b) << " variant " << variant;
  }
}

// An AES-GCM decryption ended before its tag was given fails, and says so
// on the error queue where the running OpenSSL does (4.0; 3.x leaves the
// queue empty).
TEST_F(Contract, GcmDecryptionEndedWithoutItsTagAsTheRunningOpenSsl) {
  auto [a, b] = both("AES-256-GCM", [](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
    Bytes out(64);
    int n = 0;
    ERR_clear_error();
    t.add(EVP_DecryptInit_ex2(ctx, c, kKey32.data(), kIv16.data(), nullptr));
    t.add(EVP_DecryptUpdate(ctx, out.data(), &n, kData.data(), 32));
    t.add(EVP_DecryptFinal_ex(ctx, out.data(), &n));
    t.add(ERR_peek_error() != 0);
  });
  EXPECT_EQ(a, b);
}

// A GCM init that brings a new key with a parameter the guard in front of
// OpenSSL's GCM refuses (an invocation field longer than the IV): OpenSSL
// takes the key before it looks at the parameters and keeps it, and so
// does the refusal on the direct path.
TEST_F(Contract, ARefusedGcmInitKeepsTheKeyItBrought) {
  auto [a, b] = both("AES-256-GCM", [](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
    const Bytes other(32, 0x71), inv(16, 0x05);
    Bytes out(64), tag(16);
    int n = 0;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV,
                                          const_cast<unsigned char*>(inv.data()), inv.size()),
        OSSL_PARAM_construct_end()};
    t.add(EVP_CipherInit_ex2(ctx, c, kKey32.data(), kIv16.data(), 1, nullptr));
    t.add(EVP_CipherInit_ex2(ctx, nullptr, other.data(), nullptr, -1, params));
    ERR_clear_error();
    t.add(EVP_CipherUpdate(ctx, out.data(), &n, kData.data(), 48));
    t.add(EVP_CipherFinal_ex(ctx, out.data() + 48, &n));
    t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()));
    t.add(out.data(), out.size());
    t.add(tag.data(), tag.size());
  });
  EXPECT_EQ(a, b) << where_bytes_differ(a, b);
}

}  // namespace
