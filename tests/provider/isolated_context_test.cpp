// The provider in a library context of the application's own while the
// default context holds only the null provider, as OpenSSL's sslapitest and
// ssl_test run it and as applications that isolate their providers do:
// nothing the provider does may reach the default context (random bytes
// for an IV or a key above all). Also the EVP calls whose parameters OpenSSL's
// own implementations accept loosely (EVP_CIPHER_CTX_rand_key's size of 0,
// SHA-1's "ssl3-ms", the digest parameters of a DigestSign context), and an
// ENGINE registered for a cipher when libcrypto ends.
#define OPENSSL_SUPPRESS_DEPRECATED  // the ENGINE API, for the exit test
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <sys/wait.h>
#include <unistd.h>

#if OPENSSL_VERSION_MAJOR < 4 && !defined(OPENSSL_NO_ENGINE)
#include <openssl/engine.h>
#define CRYPTOACCEL_TEST_ENGINES 1
#endif

#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "openssl_errors.hpp"

namespace {

using Bytes = std::vector<unsigned char>;
using cryptoaccel::test::openssl_errors;

// The process's default context gets the null provider before anything
// else touches it: any fetch or random draw there fails.
class NullDefaultContext : public testing::Environment {
 public:
  void SetUp() override {
    null_ = OSSL_PROVIDER_load(nullptr, "null");
    ASSERT_NE(null_, nullptr);
  }
  void TearDown() override { OSSL_PROVIDER_unload(null_); }

 private:
  OSSL_PROVIDER* null_ = nullptr;
};
const auto* const kNullDefault = testing::AddGlobalTestEnvironment(new NullDefaultContext);

class IsolatedContext : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    ours_ = OSSL_LIB_CTX_new();
    theirs_ = OSSL_LIB_CTX_new();
    ASSERT_TRUE(ours_ != nullptr && theirs_ != nullptr);
    OSSL_PROVIDER_set_default_search_path(ours_, CRYPTOACCEL_PROVIDER_DIR);
    provider_ = OSSL_PROVIDER_load(ours_, "cryptoaccel");
    ASSERT_NE(provider_, nullptr) << openssl_errors();
    ours_default_ = OSSL_PROVIDER_load(ours_, "default");
    theirs_default_ = OSSL_PROVIDER_load(theirs_, "default");
    theirs_legacy_ = OSSL_PROVIDER_load(theirs_, "legacy");
    ASSERT_TRUE(ours_default_ != nullptr && theirs_default_ != nullptr);
  }
  static void TearDownTestSuite() {
    for (OSSL_PROVIDER* p : {provider_, ours_default_, theirs_default_, theirs_legacy_})
      if (p != nullptr) OSSL_PROVIDER_unload(p);
    OSSL_LIB_CTX_free(ours_);
    OSSL_LIB_CTX_free(theirs_);
  }
  void TearDown() override { ERR_clear_error(); }

  static Bytes random(std::size_t n) {
    Bytes b(n);
    EXPECT_EQ(RAND_bytes_ex(theirs_, b.data(), n, 0), 1);
    return b;
  }

  static inline OSSL_LIB_CTX *ours_ = nullptr, *theirs_ = nullptr;
  static inline OSSL_PROVIDER *provider_ = nullptr, *ours_default_ = nullptr,
                              *theirs_default_ = nullptr, *theirs_legacy_ = nullptr;
};

using CipherPtr = std::unique_ptr<EVP_CIPHER, decltype(&EVP_CIPHER_free)>;
using CipherCtxPtr = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;
using MdPtr = std::unique_ptr<EVP_MD, decltype(&EVP_MD_free)>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

CipherPtr fetch_cipher(OSSL_LIB_CTX* ctx, const char* name, const char* properties) {
  return CipherPtr(EVP_CIPHER_fetch(ctx, name, properties), &EVP_CIPHER_free);
}

// libssl's TLS 1.2 AES-GCM key setup: a 4-byte fixed IV whose other 8 bytes
// the provider draws at random. It failed with "unable to fetch drbg" when
// the provider drew them from the default context.
TEST_F(IsolatedContext, GcmTakesAFixedIvAndDrawsTheRestAtRandom) {
  for (const char* name : {"AES-128-GCM", "AES-256-GCM"}) {
    const CipherPtr cipher = fetch_cipher(ours_, name, "provider=cryptoaccel");
    ASSERT_NE(cipher, nullptr) << name;
    const Bytes key = random(static_cast<std::size_t>(EVP_CIPHER_get_key_length(cipher.get())));
    std::array<unsigned char, 4> fixed = {1, 2, 3, 4};
    std::array<unsigned char, 12> first{}, second{};
    for (auto* iv : {&first, &second}) {
      CipherCtxPtr ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
      ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), cipher.get(), key.data(), nullptr, nullptr), 1);
      ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed.data()), 1)
          << name << ": " << openssl_errors();
      ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_IV_GEN, 12, iv->data()), 1)
          << openssl_errors();
      EXPECT_EQ(std::memcmp(iv->data(), fixed.data(), fixed.size()), 0);
    }
    EXPECT_NE(first, second) << name << ": the invocation field is not random";
  }
}

// An encryption given a key and no IV gets a random one, as with OpenSSL's.
TEST_F(IsolatedContext, GcmEncryptionWithoutAnIvDrawsOne) {
  const CipherPtr cipher = fetch_cipher(ours_, "AES-128-GCM", "provider=cryptoaccel");
  ASSERT_NE(cipher, nullptr);
  const Bytes key = random(16), pt = random(100);
  CipherCtxPtr ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  Bytes ct(pt.size());
  int n = 0, fin = 0;
  ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), cipher.get(), key.data(), nullptr, nullptr), 1);
  ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), ct.data(), &n, pt.data(), static_cast<int>(pt.size())), 1)
      << openssl_errors();
  ASSERT_EQ(EVP_EncryptFinal_ex(ctx.get(), ct.data() + n, &fin), 1) << openssl_errors();
  EXPECT_EQ(static_cast<std::size_t>(n + fin), pt.size());
}

// EVP_CIPHER_CTX_rand_key() passes its buffer with a size of 0; OpenSSL's
// providers ignore the size and so must ours. DES keys come with odd parity.
TEST_F(IsolatedContext, RandomKeysForDesAndTripleDes) {
  for (const char* name : {"DES-EDE3-CBC", "DES-CBC"}) {
    const CipherPtr cipher = fetch_cipher(ours_, name, "provider=cryptoaccel");
    ASSERT_NE(cipher, nullptr) << name;
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
    ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), cipher.get(), nullptr, nullptr, nullptr), 1);
    const auto length = static_cast<std::size_t>(EVP_CIPHER_CTX_get_key_length(ctx.get()));
    Bytes first(length), second(length);
    ASSERT_EQ(EVP_CIPHER_CTX_rand_key(ctx.get(), first.data()), 1)
        << name << ": " << openssl_errors();
    ASSERT_EQ(EVP_CIPHER_CTX_rand_key(ctx.get(), second.data()), 1) << openssl_errors();
    EXPECT_NE(first, second) << name;
    for (unsigned char byte : first) EXPECT_EQ(__builtin_popcount(byte) & 1, 1) << name;
  }
}

// SHA-1 with "ssl3-ms" (SSL 3.0's certificate verify hash) gives what
// OpenSSL's own SHA-1 gives; a master secret not of 48 bytes is refused.
TEST_F(IsolatedContext, Sha1TakesTheSsl3MasterSecret) {
  MdPtr mine(EVP_MD_fetch(ours_, "SHA1", "provider=cryptoaccel"), &EVP_MD_free);
  MdPtr ref(EVP_MD_fetch(theirs_, "SHA1", nullptr), &EVP_MD_free);
  ASSERT_TRUE(mine != nullptr && ref != nullptr) << openssl_errors();
  const Bytes transcript = random(1000);
  Bytes secret = random(48);
  std::array<Bytes, 2> digests;
  for (int i = 0; i < 2; ++i) {
    MdCtxPtr ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    ASSERT_EQ(EVP_DigestInit_ex2(ctx.get(), i == 0 ? mine.get() : ref.get(), nullptr), 1);
    ASSERT_EQ(EVP_DigestUpdate(ctx.get(), transcript.data(), transcript.size()), 1);
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_DIGEST_PARAM_SSL3_MS, secret.data(), secret.size()),
        OSSL_PARAM_END};
    ASSERT_EQ(EVP_MD_CTX_set_params(ctx.get(), params), 1) << openssl_errors();
    digests[static_cast<std::size_t>(i)].resize(20);
    unsigned int length = 0;
    ASSERT_EQ(EVP_DigestFinal_ex(ctx.get(), digests[static_cast<std::size_t>(i)].data(), &length),
              1);
  }
  EXPECT_EQ(digests[0], digests[1]);
  EXPECT_NE(
      OSSL_PARAM_locate_const(EVP_MD_settable_ctx_params(mine.get()), OSSL_DIGEST_PARAM_SSL3_MS),
      nullptr);

  MdCtxPtr ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  ASSERT_EQ(EVP_DigestInit_ex2(ctx.get(), mine.get(), nullptr), 1);
  OSSL_PARAM short_secret[] = {
      OSSL_PARAM_construct_octet_string(OSSL_DIGEST_PARAM_SSL3_MS, secret.data(), 47),
      OSSL_PARAM_END};
  EXPECT_NE(EVP_MD_CTX_set_params(ctx.get(), short_secret), 1);
}

// EVP_MD_CTX_set_params on a DigestSign context reaches its hash, as with
// OpenSSL's RSA signature; what settable lists can be set.
TEST_F(IsolatedContext, RsaDigestSignPassesDigestParametersToItsHash) {
  EVP_PKEY* raw = EVP_PKEY_Q_keygen(ours_, nullptr, "RSA", static_cast<size_t>(2048));
  ASSERT_NE(raw, nullptr) << openssl_errors();
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(raw, &EVP_PKEY_free);
  Bytes secret = random(48);
  const Bytes message = random(300);
  std::array<Bytes, 2> signatures;
  for (int i = 0; i < 2; ++i) {
    MdCtxPtr ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    // i == 0: ours; 1: OpenSSL's own, for the expected signature.
    ASSERT_EQ(EVP_DigestSignInit_ex(ctx.get(), nullptr, "SHA1", ours_,
                                    i == 0 ? "provider=cryptoaccel" : "provider=default", key.get(),
                                    nullptr),
              1)
        << openssl_errors();
    const OSSL_PARAM* settable = EVP_MD_CTX_settable_params(ctx.get());
    ASSERT_NE(OSSL_PARAM_locate_const(settable, OSSL_DIGEST_PARAM_SSL3_MS), nullptr) << i;
    ASSERT_EQ(EVP_DigestSignUpdate(ctx.get(), message.data(), message.size()), 1);
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_DIGEST_PARAM_SSL3_MS, secret.data(), secret.size()),
        OSSL_PARAM_END};
    ASSERT_EQ(EVP_MD_CTX_set_params(ctx.get(), params), 1) << i << ": " << openssl_errors();
    std::size_t length = 0;
    ASSERT_EQ(EVP_DigestSignFinal(ctx.get(), nullptr, &length), 1);
    Bytes& sig = signatures[static_cast<std::size_t>(i)];
    sig.resize(length);
    ASSERT_EQ(EVP_DigestSignFinal(ctx.get(), sig.data(), &length), 1) << openssl_errors();
    sig.resize(length);
  }
  EXPECT_EQ(signatures[0], signatures[1]);  // PKCS#1 v1.5: deterministic
}

#ifdef CRYPTOACCEL_TEST_ENGINES
// An ENGINE that offers AES-256-CTR (OpenSSL's dasync does; CTR-DRBG runs
// on it) with libcrypto's own implementation.
int engine_ciphers(ENGINE*, const EVP_CIPHER** cipher, const int** nids, int nid) {
  static const int kNids[] = {NID_aes_256_ctr, 0};
  if (cipher == nullptr) {
    *nids = kNids;
    return 1;
  }
  *cipher = nid == NID_aes_256_ctr ? EVP_aes_256_ctr() : nullptr;
  return *cipher != nullptr ? 1 : 0;
}

// With an ENGINE registered for a cipher before the provider first draws
// random bytes, the provider's own library context bound its DRBG to the
// ENGINE and freed it in OPENSSL_cleanup() after the ENGINE subsystem was
// gone: SIGSEGV in ENGINE_finish() at exit (OpenSSL's sslbuffertest with
// dasync). In a child, which ends through exit() and libcrypto's cleanup.
TEST(IsolatedContextAtExit, AnEngineRegisteredForACipherDoesNotCrashTheExit) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ENGINE* engine = ENGINE_new();
    if (engine == nullptr || ENGINE_set_id(engine, "cryptoaccel-test") != 1 ||
        ENGINE_set_name(engine, "AES-256-CTR from libcrypto") != 1 ||
        ENGINE_set_ciphers(engine, engine_ciphers) != 1 || ENGINE_add(engine) != 1 ||
        ENGINE_set_default_ciphers(engine) != 1)
      _exit(10);
    ENGINE_free(engine);  // the list and the cipher table keep theirs
    OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER_set_default_search_path(ctx, CRYPTOACCEL_PROVIDER_DIR);
    OSSL_PROVIDER* provider = OSSL_PROVIDER_load(ctx, "cryptoaccel");
    OSSL_PROVIDER_load(ctx, "default");
    EVP_CIPHER* cipher = EVP_CIPHER_fetch(ctx, "AES-128-GCM", "provider=cryptoaccel");
    if (provider == nullptr || cipher == nullptr) _exit(11);
    // A GCM encryption without IV: the provider draws one.
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    const unsigned char key[16] = {};
    unsigned char out[16];
    int n = 0;
    if (EVP_EncryptInit_ex2(c, cipher, key, nullptr, nullptr) != 1 ||
        EVP_EncryptUpdate(c, out, &n, key, sizeof key) != 1 ||
        EVP_EncryptFinal_ex(c, out + n, &n) != 1)
      _exit(12);
    EVP_CIPHER_CTX_free(c);
    EVP_CIPHER_free(cipher);
    std::exit(0);  // the providers and the context stay for OPENSSL_cleanup()
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}
#endif

}  // namespace
