// The direct path (src/provider/forwarded.hpp): where soft alone serves,
// the provider registers OpenSSL's own implementations under its name. They
// must behave as the default provider's do (results, parameters, copies)
// and still count as soft's usage. Run twice by ctest: as configured
// (direct) and with CRYPTOACCEL_DIRECT=0, where nothing is forwarded.
#include <openssl/hmac.h>
#include <openssl/kdf.h>

#include <cstdlib>
#include <string>

#include "evp_fixture.hpp"

namespace {

bool direct_expected() {
  const char* env = std::getenv("CRYPTOACCEL_DIRECT");
  return env == nullptr || std::string(env) != "0";
}

std::string provider_text(OSSL_PROVIDER* provider, const char* name) {
  char buffer[8192] = {};
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(name, buffer, sizeof buffer),
                         OSSL_PARAM_END};
  if (OSSL_PROVIDER_get_params(provider, params) != 1) return "(get_params failed)";
  return buffer;
}

// "ALG soft requests=N bytes=M" -> {N, M}; {0, 0} when absent.
std::pair<unsigned long, unsigned long> soft_usage(OSSL_PROVIDER* provider,
                                                   const std::string& alg) {
  const std::string stats = provider_text(provider, "stats");
  const std::string key = "  " + alg + " soft requests=";
  const std::size_t at = stats.find(key);
  if (at == std::string::npos) return {0, 0};
  const char* p = stats.c_str() + at + key.size();
  char* end = nullptr;
  const unsigned long requests = std::strtoul(p, &end, 10);
  const std::size_t bytes_at = stats.find("bytes=", at);
  return {requests, std::strtoul(stats.c_str() + bytes_at + 6, nullptr, 10)};
}

using MdPtr = std::unique_ptr<EVP_MD, decltype(&EVP_MD_free)>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;
using MacPtr = std::unique_ptr<EVP_MAC, decltype(&EVP_MAC_free)>;
using MacCtxPtr = std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)>;

class Forwarding : public Evp {};

#if defined(__x86_64__)
// Loading the provider runs self-tests and probes on the loading thread,
// among them OpenSSL 3.0's ChaCha20-Poly1305, which leaves the AVX upper
// state in use: on Intel CPUs every later SSE instruction of the
// application's thread then paid for it (its own AES-CBC with an IV per
// packet ran at 0.75 of the speed without the provider). The load must
// leave the state clean (XGETBV(1), XINUSE bit 2).
TEST_F(Forwarding, LoadingLeavesNoAvxUpperStateInUse) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
  const bool avx = (c & (1u << 27)) != 0 && (c & (1u << 28)) != 0;  // OSXSAVE, AVX
  if (avx) __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0xd), "c"(1));
  if (!avx || (a & (1u << 2)) == 0) GTEST_SKIP() << "this CPU does not report XINUSE";
  // A fresh load: the suite's own was made before this test ran.
  Libctx fresh;
  OSSL_PROVIDER_set_default_search_path(fresh.ctx, CRYPTOACCEL_PROVIDER_DIR);
  __asm__ volatile("vzeroupper");
  OSSL_PROVIDER* p = OSSL_PROVIDER_load(fresh.ctx, "cryptoaccel");
  ASSERT_NE(p, nullptr) << openssl_errors();
  fresh.providers.push_back(p);
  std::uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
  EXPECT_EQ(lo & (1u << 2), 0u) << "the AVX upper state is in use after loading the provider";
}
#endif

TEST_F(Forwarding, DispatchParameterSaysWhatIsDirect) {
  const std::string dispatch = provider_text(provider_, "dispatch");
  if (direct_expected()) {
    EXPECT_NE(dispatch.find("; direct: "), std::string::npos) << dispatch;
    EXPECT_NE(dispatch.find(" and HMAC (soft, without the framework)"), std::string::npos)
        << dispatch;
  } else {
    EXPECT_EQ(dispatch.find("direct"), std::string::npos) << dispatch;
  }
}

TEST_F(Forwarding, DigestsMatchAndCountAsSoft) {
  struct Named {
    const char* openssl;
    const char* ours;  // as the stats name it
  };
  for (const auto [name, alg] : {Named{"SHA256", "sha256"}, Named{"SHA512", "sha512"},
                                 Named{"SHA1", "sha1"}, Named{"MD5", "md5"}}) {
    MdPtr md(EVP_MD_fetch(ours_->ctx, name, "provider=cryptoaccel"), &EVP_MD_free);
    MdPtr ref(EVP_MD_fetch(theirs_->ctx, name, nullptr), &EVP_MD_free);
    ASSERT_TRUE(md && ref) << name << ": " << openssl_errors();
    EXPECT_EQ(EVP_MD_get_size(md.get()), EVP_MD_get_size(ref.get())) << name;
    EXPECT_EQ(EVP_MD_get_block_size(md.get()), EVP_MD_get_block_size(ref.get())) << name;
    EXPECT_EQ(EVP_MD_get_flags(md.get()), EVP_MD_get_flags(ref.get())) << name;
    const auto before = soft_usage(provider_, alg);
    const Bytes msg = random_bytes(100);
    unsigned char got[EVP_MAX_MD_SIZE], want[EVP_MAX_MD_SIZE];
    unsigned n = 0, nw = 0;
    for (int i = 0; i < 3; ++i)
      ASSERT_EQ(EVP_Digest(msg.data(), msg.size(), got, &n, md.get(), nullptr), 1)
          << openssl_errors();
    ASSERT_EQ(EVP_Digest(msg.data(), msg.size(), want, &nw, ref.get(), nullptr), 1);
    EXPECT_EQ(Bytes(got, got + n), Bytes(want, want + nw)) << name;

    // A running digest copied halfway (TLS copies its transcript hash).
    MdCtxPtr ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free), copy(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    ASSERT_EQ(EVP_DigestInit_ex2(ctx.get(), md.get(), nullptr), 1);
    ASSERT_EQ(EVP_DigestUpdate(ctx.get(), msg.data(), 40), 1);
    ASSERT_EQ(EVP_MD_CTX_copy_ex(copy.get(), ctx.get()), 1) << openssl_errors();
    ASSERT_EQ(EVP_DigestUpdate(copy.get(), msg.data() + 40, 60), 1);
    ASSERT_EQ(EVP_DigestFinal_ex(copy.get(), got, &n), 1);
    EXPECT_EQ(Bytes(got, got + n), Bytes(want, want + nw)) << name << " (copy)";
    ctx.reset();
    copy.reset();

    const auto after = soft_usage(provider_, alg);
    // Three one-shot digests and the copied stream's final: four messages
    // of 100 bytes (the framework counts each request, the direct path each
    // message: at least that many either way).
    EXPECT_GE(after.first - before.first, 4u) << alg;
    EXPECT_EQ(after.second - before.second, 400u) << alg;
  }
}

TEST_F(Forwarding, CiphersMatchAndKeepTheirParameters) {
  for (const char* name : {"AES-128-CBC", "AES-256-CTR", "AES-128-ECB", "CHACHA20"}) {
    CipherPtr c(ours(name), &EVP_CIPHER_free), ref(theirs(name), &EVP_CIPHER_free);
    ASSERT_TRUE(c && ref) << name;
    EXPECT_EQ(EVP_CIPHER_get_block_size(c.get()), EVP_CIPHER_get_block_size(ref.get())) << name;
    EXPECT_EQ(EVP_CIPHER_get_iv_length(c.get()), EVP_CIPHER_get_iv_length(ref.get())) << name;
    EXPECT_EQ(EVP_CIPHER_get_key_length(c.get()), EVP_CIPHER_get_key_length(ref.get())) << name;
    EXPECT_EQ(EVP_CIPHER_get_mode(c.get()), EVP_CIPHER_get_mode(ref.get())) << name;
    EXPECT_NE(EVP_CIPHER_settable_ctx_params(c.get()), nullptr) << name;
    EXPECT_NE(EVP_CIPHER_gettable_ctx_params(c.get()), nullptr) << name;

    const Bytes key = random_bytes(static_cast<std::size_t>(EVP_CIPHER_get_key_length(c.get())));
    const Bytes iv = random_bytes(16);
    const Bytes msg = random_bytes(64);
    auto run = [&](const EVP_CIPHER* cipher, bool copy_halfway) {
      CtxPtr ctx = new_ctx();
      Bytes out(msg.size() + 32);
      int n1 = 0, n2 = 0, n3 = 0;
      EXPECT_EQ(EVP_EncryptInit_ex2(ctx.get(), cipher, key.data(), iv.data(), nullptr), 1);
      EVP_CIPHER_CTX_set_padding(ctx.get(), 0);
      EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), out.data(), &n1, msg.data(), 32), 1);
      if (copy_halfway) {  // continue on a copy, as OpenSSH's rekeying does not, but CMS may
        CtxPtr copy = new_ctx();
        EXPECT_EQ(EVP_CIPHER_CTX_copy(copy.get(), ctx.get()), 1) << openssl_errors();
        ctx = std::move(copy);
      }
      EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), out.data() + n1, &n2, msg.data() + 32, 32), 1);
      EXPECT_EQ(EVP_EncryptFinal_ex(ctx.get(), out.data() + n1 + n2, &n3), 1);
      out.resize(static_cast<std::size_t>(n1 + n2 + n3));
      return out;
    };
    EXPECT_EQ(run(c.get(), false), run(ref.get(), false)) << name;
    EXPECT_EQ(run(c.get(), true), run(ref.get(), false)) << name << " (copied)";
  }
}

TEST_F(Forwarding, HmacMatchesForEveryDigestAndCountsOurs) {
  MacPtr mac(EVP_MAC_fetch(ours_->ctx, "HMAC", "provider=cryptoaccel"), &EVP_MAC_free);
  MacPtr ref(EVP_MAC_fetch(theirs_->ctx, "HMAC", nullptr), &EVP_MAC_free);
  ASSERT_TRUE(mac && ref) << openssl_errors();
  const Bytes key = random_bytes(20), msg = random_bytes(77);
  // SHA3-256: a digest no driver offers, served by OpenSSL's HMAC all the same.
  for (const char* digest : {"SHA256", "SHA2-512", "SHA1", "SHA3-256"}) {
    const auto before = soft_usage(provider_, "hmac-sha256");
    auto compute = [&](EVP_MAC* m) {
      MacCtxPtr ctx(EVP_MAC_CTX_new(m), &EVP_MAC_CTX_free);
      OSSL_PARAM params[] = {
          OSSL_PARAM_construct_utf8_string("digest", const_cast<char*>(digest), 0), OSSL_PARAM_END};
      unsigned char out[EVP_MAX_MD_SIZE];
      size_t n = 0;
      EXPECT_EQ(EVP_MAC_init(ctx.get(), key.data(), key.size(), params), 1) << openssl_errors();
      EXPECT_EQ(EVP_MAC_update(ctx.get(), msg.data(), msg.size()), 1);
      MacCtxPtr copy(EVP_MAC_CTX_dup(ctx.get()), &EVP_MAC_CTX_free);
      EXPECT_TRUE(copy) << openssl_errors();
      EXPECT_EQ(EVP_MAC_final(copy.get(), out, &n, sizeof out), 1);
      return Bytes(out, out + n);
    };
    EXPECT_EQ(compute(mac.get()), compute(ref.get())) << digest;
    const auto after = soft_usage(provider_, "hmac-sha256");
    if (std::string(digest) == "SHA256") {
      EXPECT_GE(after.first - before.first, 1u);
      EXPECT_EQ(after.second - before.second, msg.size());
    }
  }
  // HMAC through the legacy HMAC() call, which OpenSSH and curl still use.
  unsigned char out[EVP_MAX_MD_SIZE], want[EVP_MAX_MD_SIZE];
  unsigned n = 0, nw = 0;
  MdPtr md(EVP_MD_fetch(ours_->ctx, "SHA256", "provider=cryptoaccel"), &EVP_MD_free);
  ASSERT_NE(
      HMAC(md.get(), key.data(), static_cast<int>(key.size()), msg.data(), msg.size(), out, &n),
      nullptr);
  ASSERT_NE(HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), msg.data(), msg.size(),
                 want, &nw),
            nullptr);
  EXPECT_EQ(Bytes(out, out + n), Bytes(want, want + nw));
}

}  // namespace

namespace {

// The checks the provider keeps in front of OpenSSL's own AEADs
// (forwarded.hpp), the same on both paths.
TEST_F(Forwarding, AeadGuardsKeepTheProvidersChecks) {
  CipherPtr chacha(ours("ChaCha20-Poly1305"), &EVP_CIPHER_free);
  const Bytes key = random_bytes(32), nonce = random_bytes(12), msg = random_bytes(50);
  Bytes out(msg.size());
  int n = 0;
  {  // No key ever set: OpenSSL would run under an all-zero key.
    auto ctx = new_ctx();
    ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), chacha.get(), nullptr, nonce.data(), nullptr), 1);
    EXPECT_NE(EVP_EncryptUpdate(ctx.get(), out.data(), &n, msg.data(), 50), 1);
    openssl_errors();
  }
  {  // A decryption that never got its tag: OpenSSL would compare no bytes.
    auto ctx = new_ctx();
    ASSERT_EQ(EVP_DecryptInit_ex2(ctx.get(), chacha.get(), key.data(), nonce.data(), nullptr), 1);
    ASSERT_EQ(EVP_DecryptUpdate(ctx.get(), out.data(), &n, msg.data(), 50), 1);
    EXPECT_NE(EVP_DecryptFinal_ex(ctx.get(), out.data(), &n), 1);
    EXPECT_EQ(openssl_errors(), "");  // as for a forgery: Python reads InvalidTag
  }
  {  // EVP_Cipher's final call makes the tag, as OpenSSL 3.0.22 does.
    auto ctx = new_ctx();
    Bytes tag(16, 0);
    ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), chacha.get(), key.data(), nonce.data(), nullptr), 1);
    EXPECT_EQ(EVP_Cipher(ctx.get(), out.data(), msg.data(), 50), 50);
    EXPECT_EQ(EVP_Cipher(ctx.get(), nullptr, nullptr, 0), 0);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
    EXPECT_NE(tag, Bytes(16, 0));
  }
  {  // A fixed IV longer than GCM's IV: OpenSSL would copy past its IV.
    CipherPtr gcm(ours("AES-128-GCM"), &EVP_CIPHER_free);
    auto ctx = new_ctx();
    Bytes iv(200, 1);
    ASSERT_EQ(EVP_DecryptInit_ex2(ctx.get(), gcm.get(), key.data(), nullptr, nullptr), 1);
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IV_FIXED, 200, iv.data()), 0);
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IV_FIXED, -1, iv.data()), 1);
    openssl_errors();
  }
}

}  // namespace
