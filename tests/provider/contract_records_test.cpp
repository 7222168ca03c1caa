// The EVP contract of TLS record modes and parameter sets, as the
// differential fuzzer's parameter operations found it: each runs the same
// calls on OpenSSL's default provider and on cryptoaccel (on both paths:
// provider.contract and provider.contract.sessions) and compares every
// return value and byte. Each failed before the provider followed OpenSSL.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include "contract_fixture.hpp"

namespace {

// Its own suite: a fixture of another translation unit is another class.
class RecordContract : public Contract {};

const Bytes kKey(32, 0x42), kIv(16, 0x24);

void set_tls(EVP_CIPHER_CTX* ctx, Trace& t, unsigned version, std::size_t mac_size) {
  OSSL_PARAM params[] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &version),
                         OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &mac_size),
                         OSSL_PARAM_construct_end()};
  t.add(EVP_CIPHER_CTX_set_params(ctx, params));
}

// "tls-mac": a pointer to the MAC the last record gave up, null before one.
void read_tls_mac(EVP_CIPHER_CTX* ctx, Trace& t) {
  void* mac = nullptr;
  OSSL_PARAM params[] = {OSSL_PARAM_construct_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, &mac, 0),
                         OSSL_PARAM_construct_end()};
  t.add(EVP_CIPHER_CTX_get_params(ctx, params));
  t.add(mac != nullptr);
  t.add(static_cast<long>(params[0].return_size));
  if (mac != nullptr) t.add(static_cast<const unsigned char*>(mac), params[0].return_size);
}

// One record sealed and opened in place as libssl does: explicit IV (TLS
// 1.1 and later), payload and MAC, padded by the cipher.
void record_round_trip(EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t, unsigned version) {
  constexpr std::size_t kMac = 20;
  Bytes record(16 + 30 + kMac, 0x5a);
  for (std::size_t i = 0; i < record.size(); ++i) record[i] = static_cast<unsigned char>(i * 7);
  record.resize(record.size() + 32);
  const int in = 16 + 30 + kMac;
  int n = 0;
  t.add(EVP_EncryptInit_ex2(ctx, c, kKey.data(), kIv.data(), nullptr));
  set_tls(ctx, t, version, kMac);
  read_tls_mac(ctx, t);
  t.add(EVP_CipherUpdate(ctx, record.data(), &n, record.data(), in));
  t.add(n);
  const int sealed = n;
  t.add(EVP_DecryptInit_ex2(ctx, c, kKey.data(), kIv.data(), nullptr));
  set_tls(ctx, t, version, kMac);
  t.add(EVP_CipherUpdate(ctx, record.data(), &n, record.data(), sealed));
  t.add(n);
  read_tls_mac(ctx, t);
  t.add(record.data(), record.size());
}

TEST_F(RecordContract, TlsRecordModeOfEveryGenericCipherIsAsTheDefault) {
  for (const char* name : {"AES-128-CBC", "AES-128-ECB", "AES-256-CTR"})
    for (unsigned version : {0x0300U, 0x0301U, 0x0303U, 0x0304U}) {
      auto [a, b] = both(name, [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
        record_round_trip(ctx, c, t, version);
      });
      EXPECT_EQ(a, b) << where_bytes_differ(a, b) << name << " version " << std::hex << version;
    }
}

TEST_F(RecordContract, TheChaCha20BlockAnUpdateFinishedStaysAcrossAnInitWithNeither) {
  auto [a, b] = both("ChaCha20", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
    Bytes in(200, 0x33), out(200);
    const Bytes other(32, 0x17);
    int n = 0;
    t.add(EVP_EncryptInit_ex2(ctx, c, kKey.data(), kIv.data(), nullptr));
    t.add(EVP_CipherUpdate(ctx, out.data(), &n, in.data(), 65));
    t.add(EVP_CipherUpdate(ctx, out.data() + 65, &n, in.data(), 63));
    t.add(EVP_CipherUpdate(ctx, out.data() + 128, &n, in.data(), 0));
    t.add(EVP_EncryptInit_ex2(ctx, nullptr, nullptr, nullptr, nullptr));
    t.add(EVP_EncryptInit_ex2(ctx, nullptr, other.data(), nullptr, nullptr));
    t.add(EVP_CipherUpdate(ctx, out.data() + 128, &n, in.data(), 32));
    t.add(out.data(), out.size());
  });
  EXPECT_EQ(a, b) << where_bytes_differ(a, b);
}

// OpenSSL reads a GCM parameter set's tag, then its IV length, then the
// record parameters, and keeps what it took before one it refuses.
TEST_F(RecordContract, ARefusedGcmParameterSetKeepsWhatTheDefaultTookFirst) {
  auto [a, b] = both("AES-256-GCM", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
    std::size_t ivlen = 1, got = 0;
    unsigned char fixed[1] = {9};
    t.add(EVP_EncryptInit_ex2(ctx, c, kKey.data(), kIv.data(), nullptr));
    OSSL_PARAM set[] = {
        OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &ivlen),
        OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, fixed, 1),
        OSSL_PARAM_construct_end()};
    t.add(EVP_CIPHER_CTX_set_params(ctx, set));
    OSSL_PARAM query[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &got),
                          OSSL_PARAM_construct_end()};
    t.add(EVP_CIPHER_CTX_get_params(ctx, query));
    t.add(static_cast<long>(got));
  });
  EXPECT_EQ(a, b) << where_bytes_differ(a, b);
}

// A refused fixed IV is not a context set up for records: an IV given
// later, of any length, is taken.
TEST_F(RecordContract, AFixedIvOfARefusedSetLeavesNoRecordSetUp) {
  auto [a, b] = both("AES-128-GCM", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
    unsigned char tag[4] = {1, 2, 3, 4};
    std::size_t ivlen = 12;
    t.add(EVP_EncryptInit_ex2(ctx, c, kKey.data(), kIv.data(), nullptr));
    t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 4, nullptr));
    // The tag, read first, is refused on an encryption.
    OSSL_PARAM set[] = {
        OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, tag, 0),
        OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, sizeof tag),
        OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &ivlen), OSSL_PARAM_construct_end()};
    t.add(EVP_CIPHER_CTX_set_params(ctx, set));
    t.add(EVP_EncryptInit_ex2(ctx, nullptr, kKey.data(), kIv.data(), nullptr));
  });
  EXPECT_EQ(a, b) << where_bytes_differ(a, b);
}

// A context EVP made but never initialised (its init refused an IV
// length first) decrypts, as OpenSSL's zeroed ones: it takes a tag.
TEST_F(RecordContract, AnAeadContextNeverInitialisedTakesATag) {
  for (const char* name : {"AES-128-GCM", "ChaCha20-Poly1305"}) {
    auto [a, b] = both(name, [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
      std::size_t ivlen = 129;
      unsigned char tag[16] = {};
      OSSL_PARAM bad[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &ivlen),
                          OSSL_PARAM_construct_end()};
      t.add(EVP_EncryptInit_ex2(ctx, c, kKey.data(), kIv.data(), bad));
      t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, sizeof tag, tag));
    });
    EXPECT_EQ(a, b) << where_bytes_differ(a, b) << name;
  }
}

// OpenSSL since 3.6 refuses a set naming a parameter twice, and since
// 3.0.20 a "num" not below the block size (CTR's is 1): as the running one.
TEST_F(RecordContract, ParameterSetsAreCheckedAsTheRunningOpenSsl) {
  for (const char* name : {"AES-128-CBC", "AES-128-CTR", "AES-128-GCM", "ChaCha20-Poly1305"}) {
    auto [a, b] = both(name, [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
      unsigned padding = 1;
      std::size_t ivlen = 12;
      t.add(EVP_EncryptInit_ex2(ctx, c, kKey.data(), kIv.data(), nullptr));
      OSSL_PARAM twice[] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_PADDING, &padding),
                            OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_PADDING, &padding),
                            OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
                            OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
                            OSSL_PARAM_construct_end()};
      t.add(EVP_CIPHER_CTX_set_params(ctx, twice));
      if (EVP_CIPHER_get_mode(c) != EVP_CIPH_GCM_MODE &&
          !(EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER))
        for (int num : {1, 7, 15}) t.add(EVP_CIPHER_CTX_set_num(ctx, num));
    });
    EXPECT_EQ(a, b) << where_bytes_differ(a, b) << name;
  }
}

// After "tlsaad" and some AAD, a record of the wrong length is refused;
// more AAD follows.
// OpenSSL's ChaCha20-Poly1305 then goes on as if the AAD had ended and
// makes a tag no peer computes. The provider never gives a tag OpenSSL
// would not: its framework ends the message there (docs/provider.md).
TEST_F(RecordContract, ChaCha20Poly1305NeverTagsAMessageARefusedRecordBroke) {
  auto [a, b] = both("ChaCha20-Poly1305", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
    unsigned char aad[13] = {0, 0, 0, 0, 0, 0, 0, 1, 0x17, 3, 3, 0, 8};
    Bytes buf(64, 0x11);
    unsigned char tag[16] = {};
    int n = 0;
    t.add(EVP_EncryptInit_ex2(ctx, c, kKey.data(), kIv.data(), nullptr));
    t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, sizeof aad, aad));
    t.add(EVP_CipherUpdate(ctx, nullptr, &n, buf.data(), 12));
    t.add(EVP_Cipher(ctx, buf.data(), buf.data(), 3));
    t.add(EVP_CipherUpdate(ctx, nullptr, &n, buf.data(), 15));
    t.add(EVP_CipherFinal_ex(ctx, buf.data(), &n));
    t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, sizeof tag, tag));
    t.add(tag, sizeof tag);
  });
  ASSERT_EQ(a.results.size(), b.results.size());
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(a.results[i], b.results[i]) << "call " << i;
  // The final: OpenSSL's (b) succeeds; ours succeeds with the same tag or
  // refuses (with the AAD after the record, if it took that).
  EXPECT_EQ(b.results[5], 1);
  if (a.results[5] == 1) {
    EXPECT_EQ(a.bytes, b.bytes);
  }
}

// OpenSSL 4.0's EVP hands an init the key and IV lengths a parameter set
// last named, which the cipher may then refuse: the IV (taken first) and
// the stream stand as OpenSSL's do.
TEST_F(RecordContract, AnInitRefusedForALengthAParameterSetNamedIsAsTheDefault) {
  for (const char* name : {"AES-128-CBC", "AES-128-CTR"}) {
    auto [a, b] = both(name, [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
      Bytes in(64, 0x61), out(64 + 32);
      int n = 0;
      std::size_t keylen = 24;
      t.add(EVP_EncryptInit_ex2(ctx, c, kKey.data(), kIv.data(), nullptr));
      t.add(EVP_CipherUpdate(ctx, out.data(), &n, in.data(), 20));
      OSSL_PARAM set[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_KEYLEN, &keylen),
                          OSSL_PARAM_construct_end()};
      t.add(EVP_CIPHER_CTX_set_params(ctx, set));
      const Bytes other_iv(16, 0x77);
      t.add(EVP_EncryptInit_ex2(ctx, nullptr, kKey.data(), other_iv.data(), nullptr));
      t.add(EVP_CipherUpdate(ctx, out.data() + 32, &n, in.data(), 40));
      t.add(n);
      t.add(out.data(), out.size());
    });
    EXPECT_EQ(a, b) << where_bytes_differ(a, b) << name;
  }
}

// EVP_Cipher(ctx, NULL, NULL, 0) ends a ChaCha20-Poly1305 message where the
// running OpenSSL does (3.0.22 on), keeping the nonce for the next; and a
// decryption's final before its tag is refused where OpenSSL 4.0 refuses
// it, the message going on.
TEST_F(RecordContract, ChaCha20Poly1305MessageEndsAsTheRunningOpenSsl) {
  // Before, both are documented differences (docs/provider.md): OpenSSL's
  // EVP_Cipher(NULL, NULL, 0) did nothing before 3.0.22, and a final
  // without the tag passed before 4.0.
  if (OpenSSL_version_num() < 0x40000000L)
    GTEST_SKIP() << "before OpenSSL 4.0 this is a documented difference";
  auto [a, b] = both("ChaCha20-Poly1305", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
    Bytes in(40, 0x62), out(80);
    unsigned char tail[16];
    int n = 0;
    t.add(EVP_EncryptInit_ex2(ctx, c, kKey.data(), kIv.data(), nullptr));
    t.add(EVP_Cipher(ctx, out.data(), in.data(), 20));
    t.add(EVP_Cipher(ctx, nullptr, nullptr, 0));
    t.add(EVP_CipherUpdate(ctx, out.data() + 20, &n, in.data(), 20));
    t.add(EVP_CipherUpdate(ctx, nullptr, &n, in.data(), 5));
    t.add(EVP_DecryptInit_ex2(ctx, nullptr, kKey.data(), kIv.data(), nullptr));
    t.add(EVP_CipherUpdate(ctx, out.data() + 40, &n, in.data(), 20));
    t.add(EVP_CipherFinal_ex(ctx, tail, &n));
    t.add(EVP_CipherUpdate(ctx, out.data() + 60, &n, in.data(), 20));
    t.add(out.data(), out.size());
  });
  EXPECT_EQ(a, b) << where_bytes_differ(a, b);
}

// OpenSSL 3.6 refuses a GCM parameter set naming a parameter twice before
// it reads any of it, and takes a direction before it refuses a key's
// length (OpenSSL 4.0's EVP passes one a set named): as the running one.
TEST_F(RecordContract, AGcmInitRefusedWholeOrForItsKeyLengthIsAsTheDefault) {
  auto [a, b] = both("AES-256-GCM", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
    Bytes in(32, 0x63), out(64);
    unsigned char fixed[4] = {1, 2, 3, 4}, tag[16];
    std::size_t ivlen = 7, keylen = 24;
    int n = 0;
    t.add(EVP_EncryptInit_ex2(ctx, c, kKey.data(), kIv.data(), nullptr));
    OSSL_PARAM twice[] = {
        OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, fixed, 4),
        OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &ivlen),
        OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, fixed, 0),
        OSSL_PARAM_construct_end()};
    t.add(EVP_CIPHER_CTX_set_params(ctx, twice));
    t.add(EVP_CipherUpdate(ctx, out.data(), &n, in.data(), 16));
    OSSL_PARAM length[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_KEYLEN, &keylen),
                           OSSL_PARAM_construct_end()};
    t.add(EVP_DecryptInit_ex2(ctx, nullptr, kKey.data(), nullptr, length));
    t.add(EVP_CipherUpdate(ctx, out.data() + 16, &n, in.data(), 16));
    t.add(EVP_CipherFinal_ex(ctx, tag, &n));
    t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag));
    t.add(out.data(), out.size());
  });
  EXPECT_EQ(a, b) << where_bytes_differ(a, b);
}

// ChaCha20-Poly1305 AAD after a payload of no bytes, or after a new nonce
// in the middle of the AAD: OpenSSL 4.0 refuses AAD only after payload
// bytes, and 3.0 never; both hash it in where it comes.
TEST_F(RecordContract, ChaCha20Poly1305AadAfterAnEmptyPayloadAsTheRunningOpenSsl) {
  auto [a, b] = both("ChaCha20-Poly1305", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
    Bytes buf(64, 0x21), out(64);
    unsigned char fixed[12] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2}, tag[16];
    int n = 0;
    t.add(EVP_EncryptInit_ex2(ctx, c, kKey.data(), kIv.data(), nullptr));
    t.add(EVP_Cipher(ctx, out.data(), out.data(), 0));
    t.add(EVP_Cipher(ctx, nullptr, buf.data(), 33));
    t.add(EVP_CipherUpdate(ctx, out.data(), &n, buf.data(), 20));
    t.add(EVP_CipherFinal_ex(ctx, out.data() + 20, &n));
    t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, sizeof tag, tag));
    t.add(tag, sizeof tag);
    t.add(EVP_DecryptInit_ex2(ctx, nullptr, kKey.data(), kIv.data(), nullptr));
    t.add(EVP_CipherUpdate(ctx, nullptr, &n, buf.data(), 48));
    t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IV_FIXED, sizeof fixed, fixed));
    t.add(EVP_CipherUpdate(ctx, nullptr, &n, buf.data(), 2));
    t.add(EVP_CipherUpdate(ctx, out.data() + 20, &n, buf.data(), 30));
    t.add(EVP_CipherUpdate(ctx, nullptr, &n, buf.data(), 2));
    t.add(out.data(), out.size());
  });
  EXPECT_EQ(a, b) << where_bytes_differ(a, b);
}

// An encryption's final after a ChaCha20-Poly1305 record of the wrong
// length: OpenSSL makes a tag no peer computes and spends the nonce (4.0
// then refuses updates until a new one), the provider refuses the final
// (docs/provider.md) and spends it too. A decryption's final fails on
// both, and the next record's AAD is taken on both.
TEST_F(RecordContract, ChaCha20Poly1305RecordOfTheWrongLengthSpendsTheNonceAsTheRunningOpenSsl) {
  for (const int encrypt : {1, 0}) {
    auto [a, b] = both("ChaCha20-Poly1305", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
      unsigned char aad[13] = {0, 0, 0, 0, 0, 0, 0, 1, 0x17, 3, 3, 0, 0x20};
      Bytes buf(64, 0x11);
      int n = 0;
      t.add(EVP_CipherInit_ex2(ctx, c, kKey.data(), kIv.data(), encrypt, nullptr));
      if (!encrypt) {
        unsigned char tag[16] = {1};
        t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, sizeof tag, tag));
      }
      t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, sizeof aad, aad));
      t.add(EVP_CipherUpdate(ctx, nullptr, &n, buf.data(), 10));
      t.add(EVP_CipherUpdate(ctx, buf.data(), &n, buf.data(), 2));
      // The final itself is the documented difference: not compared.
      (void)EVP_CipherFinal_ex(ctx, buf.data(), &n);
      ERR_clear_error();
      aad[7] = 2;
      t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, sizeof aad, aad));
      t.add(EVP_CipherUpdate(ctx, nullptr, &n, buf.data(), 1));
      t.add(EVP_CipherUpdate(ctx, nullptr, &n, buf.data(), 0));
    });
    EXPECT_EQ(a, b) << where_bytes_differ(a, b) << (encrypt ? "encrypting" : "decrypting");
  }
}

// A GCM decryption whose final fails on its tag leaves OpenSSL's message
// finished once; switched to encryption, its next final finishes it again.
// The provider's tag is OpenSSL's, for a message of AAD only and for one
// whose payload a driver already verified under another tag.
TEST_F(RecordContract, AGcmMessageWhoseTagFailedIsFinishedAgainAsTheDefault) {
  for (const bool with_payload : {false, true}) {
    auto [a, b] = both("AES-192-GCM", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
      Bytes pt(40, 0x52), ct(40), out(40);
      unsigned char good[16], wrong[16] = {3}, tag[16];
      int n = 0;
      t.add(EVP_EncryptInit_ex2(ctx, c, kKey.data(), kIv.data(), nullptr));
      t.add(EVP_CipherUpdate(ctx, nullptr, &n, pt.data(), 7));
      if (with_payload) t.add(EVP_CipherUpdate(ctx, ct.data(), &n, pt.data(), 40));
      t.add(EVP_CipherFinal_ex(ctx, out.data(), &n));
      t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, sizeof good, good));
      t.add(EVP_DecryptInit_ex2(ctx, nullptr, kKey.data(), kIv.data(), nullptr));
      t.add(EVP_CipherUpdate(ctx, nullptr, &n, pt.data(), 7));
      if (with_payload) {
        t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, sizeof good, good));
        t.add(EVP_CipherUpdate(ctx, out.data(), &n, ct.data(), 40));
      }
      t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, sizeof wrong, wrong));
      t.add(EVP_CipherFinal_ex(ctx, out.data(), &n));
      ERR_clear_error();
      t.add(EVP_EncryptInit_ex2(ctx, nullptr, nullptr, nullptr, nullptr));
      t.add(EVP_CipherFinal_ex(ctx, out.data(), &n));
      t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, sizeof tag, tag));
      t.add(tag, sizeof tag);
      t.add(out.data(), out.size());
    });
    EXPECT_EQ(a, b) << where_bytes_differ(a, b) << (with_payload ? "with" : "without")
                    << " a payload";
  }
}

// A ChaCha20-Poly1305 decryption with AAD after its payload (OpenSSL 3.0
// takes it), switched to encryption in mid-message: the sessions bring
// OpenSSL's context to the same point, the late AAD where it came.
TEST_F(RecordContract, ChaCha20Poly1305AadAfterThePayloadSurvivesADirectionSwitch) {
  auto [a, b] = both("ChaCha20-Poly1305", [&](EVP_CIPHER_CTX* ctx, EVP_CIPHER* c, Trace& t) {
    Bytes in(64, 0x44), out(96);
    unsigned char tag[16];
    int n = 0;
    t.add(EVP_DecryptInit_ex2(ctx, c, kKey.data(), kIv.data(), nullptr));
    t.add(EVP_CipherUpdate(ctx, nullptr, &n, in.data(), 9));
    t.add(EVP_CipherUpdate(ctx, out.data(), &n, in.data(), 31));
    t.add(EVP_Cipher(ctx, nullptr, in.data(), 50));
    t.add(EVP_EncryptInit_ex2(ctx, nullptr, nullptr, nullptr, nullptr));
    t.add(EVP_CipherUpdate(ctx, out.data() + 31, &n, in.data(), 20));
    t.add(EVP_CipherFinal_ex(ctx, out.data() + 51, &n));
    t.add(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, sizeof tag, tag));
    t.add(tag, sizeof tag);
    t.add(out.data(), out.size());
  });
  EXPECT_EQ(a, b) << where_bytes_differ(a, b);
}

}  // namespace
