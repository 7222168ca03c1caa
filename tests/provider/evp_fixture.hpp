// What the EVP-level provider tests share: the two library contexts (ours:
// cryptoaccel.so loaded by the real loader, plus default; theirs: OpenSSL's
// default and legacy only) and small helpers.
#pragma once

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include <memory>
#include <string>
#include <vector>

#include "openssl_errors.hpp"

namespace {

using Bytes = std::vector<unsigned char>;

inline Bytes random_bytes(std::size_t n) {
  Bytes b(n);
  if (n != 0) RAND_bytes(b.data(), static_cast<int>(n));
  return b;
}

using cryptoaccel::test::openssl_errors;

struct Libctx {
  OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
  std::vector<OSSL_PROVIDER*> providers;
  ~Libctx() {
    for (auto* p : providers) OSSL_PROVIDER_unload(p);
    OSSL_LIB_CTX_free(ctx);
  }
};

// `ours` has cryptoaccel (and default, for what we do not offer); `theirs`
// only OpenSSL's default and legacy providers.
class Evp : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    ours_ = std::make_unique<Libctx>();
    OSSL_PROVIDER_set_default_search_path(ours_->ctx, CRYPTOACCEL_PROVIDER_DIR);
    provider_ = OSSL_PROVIDER_load(ours_->ctx, "cryptoaccel");
    ASSERT_NE(provider_, nullptr) << openssl_errors();
    ours_->providers = {provider_, OSSL_PROVIDER_load(ours_->ctx, "default")};
    theirs_ = std::make_unique<Libctx>();
    theirs_->providers = {OSSL_PROVIDER_load(theirs_->ctx, "default"),
                          OSSL_PROVIDER_load(theirs_->ctx, "legacy")};
  }
  static void TearDownTestSuite() {
    ours_.reset();
    theirs_.reset();
  }
  void TearDown() override { ERR_clear_error(); }

  static EVP_CIPHER* ours(const char* name) {
    EVP_CIPHER* c = EVP_CIPHER_fetch(ours_->ctx, name, "provider=cryptoaccel");
    EXPECT_NE(c, nullptr) << name << ": " << openssl_errors();
    return c;
  }
  static EVP_CIPHER* theirs(const char* name) {
    EVP_CIPHER* c = EVP_CIPHER_fetch(theirs_->ctx, name, nullptr);
    EXPECT_NE(c, nullptr) << name;
    return c;
  }

  // Whether the provider hands what soft alone serves to OpenSSL's own
  // implementation (the direct path, docs/provider.md "Speed"): then its
  // errors are OpenSSL's, not the provider's readable ones.
  static bool direct() {
    char buffer[4096] = {};
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("dispatch", buffer, sizeof buffer),
                           OSSL_PARAM_END};
    return OSSL_PROVIDER_get_params(provider_, params) == 1 &&
           std::string(buffer).find("; direct: ") != std::string::npos;
  }

  static inline std::unique_ptr<Libctx> ours_, theirs_;
  static inline OSSL_PROVIDER* provider_ = nullptr;
};

using CipherPtr = std::unique_ptr<EVP_CIPHER, decltype(&EVP_CIPHER_free)>;
using CtxPtr = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;
inline CtxPtr new_ctx() {
  return CtxPtr(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
}

struct Sealed {
  Bytes ct, tag;
  bool ok = false;
};

// AEAD seal: AAD in two updates, payload in one.
inline Sealed seal(EVP_CIPHER* c, const Bytes& key, const Bytes& iv, const Bytes& aad,
                   const Bytes& pt, std::size_t taglen = 16) {
  Sealed s;
  auto ctx = new_ctx();
  std::size_t ivlen = iv.size();
  OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
                         OSSL_PARAM_END};
  int n = 0;
  s.ct.resize(pt.size());
  s.tag.resize(taglen);
  if (EVP_EncryptInit_ex2(ctx.get(), c, nullptr, nullptr, params) != 1 ||
      EVP_EncryptInit_ex2(ctx.get(), nullptr, key.data(), iv.data(), nullptr) != 1)
    return s;
  const std::size_t half = aad.size() / 2;
  if (EVP_EncryptUpdate(ctx.get(), nullptr, &n, aad.data(), static_cast<int>(half)) != 1 ||
      EVP_EncryptUpdate(ctx.get(), nullptr, &n, aad.data() + half,
                        static_cast<int>(aad.size() - half)) != 1)
    return s;
  int len = 0, fin = 0;
  if (!pt.empty() &&
      EVP_EncryptUpdate(ctx.get(), s.ct.data(), &len, pt.data(), static_cast<int>(pt.size())) != 1)
    return s;
  if (EVP_EncryptFinal_ex(ctx.get(), s.ct.data() + len, &fin) != 1 ||
      static_cast<std::size_t>(len + fin) != pt.size())
    return s;
  s.ok = EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, static_cast<int>(taglen),
                             s.tag.data()) == 1;
  return s;
}

// AEAD open with the tag set before the payload; `out` is what the caller
// would see even on failure.
inline bool open(EVP_CIPHER* c, const Bytes& key, const Bytes& iv, const Bytes& aad,
                 const Bytes& ct, Bytes tag, Bytes& out) {
  auto ctx = new_ctx();
  std::size_t ivlen = iv.size();
  OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
                         OSSL_PARAM_END};
  out.assign(ct.size(), 0);
  int n = 0, len = 0, fin = 0;
  if (EVP_DecryptInit_ex2(ctx.get(), c, nullptr, nullptr, params) != 1 ||
      EVP_DecryptInit_ex2(ctx.get(), nullptr, key.data(), iv.data(), nullptr) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, static_cast<int>(tag.size()),
                          tag.data()) != 1 ||
      EVP_DecryptUpdate(ctx.get(), nullptr, &n, aad.data(), static_cast<int>(aad.size())) != 1)
    return false;
  if (!ct.empty() &&
      EVP_DecryptUpdate(ctx.get(), out.data(), &len, ct.data(), static_cast<int>(ct.size())) != 1)
    return false;
  return EVP_DecryptFinal_ex(ctx.get(), out.data() + len, &fin) == 1;
}

}  // namespace
