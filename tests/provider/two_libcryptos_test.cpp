// Two libcryptos in one process (a plugin host that holds OpenSSL 4's beside
// 3's), both loading cryptoaccel.so: the second here is a copy of the
// process's own libcrypto under another path, loaded with RTLD_DEEPBIND so
// that it is a library of its own with its own state. One loaded module
// serves one libcrypto (src/provider/libcrypto_binding.cpp): the second is
// refused with the reason and the first keeps working even after the second
// has been cleaned up; a copy of the module under another file name serves
// the second. Also the provider reloaded within one libcrypto.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "openssl_errors.hpp"
#include "provider_sha256.hpp"
#include "provider_stats.hpp"

namespace {

namespace fs = std::filesystem;
using cryptoaccel::test::openssl_errors;
using cryptoaccel::test::provider_sha256_right;
using cryptoaccel::test::provider_stats;

// The path of the libcrypto this program runs on.
std::string own_libcrypto() {
  Dl_info info{};
  EXPECT_NE(dladdr(reinterpret_cast<void*>(&OSSL_PROVIDER_load), &info), 0);
  return info.dli_fname != nullptr ? info.dli_fname : "";
}

// The second library's functions this test calls, looked up by name.
struct SecondLibcrypto {
  void* handle = nullptr;
  decltype(&OSSL_LIB_CTX_new) lib_ctx_new = nullptr;
  decltype(&OSSL_LIB_CTX_free) lib_ctx_free = nullptr;
  decltype(&OSSL_PROVIDER_load) provider_load = nullptr;
  decltype(&OSSL_PROVIDER_unload) provider_unload = nullptr;
  decltype(&EVP_MD_fetch) md_fetch = nullptr;
  decltype(&EVP_MD_free) md_free = nullptr;
  decltype(&EVP_Digest) digest = nullptr;
  decltype(&OPENSSL_cleanup) cleanup = nullptr;

  explicit SecondLibcrypto(const std::string& path)
      : handle(dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)) {
    if (handle == nullptr) return;
    find(lib_ctx_new, "OSSL_LIB_CTX_new");
    find(lib_ctx_free, "OSSL_LIB_CTX_free");
    find(provider_load, "OSSL_PROVIDER_load");
    find(provider_unload, "OSSL_PROVIDER_unload");
    find(md_fetch, "EVP_MD_fetch");
    find(md_free, "EVP_MD_free");
    find(digest, "EVP_Digest");
    find(cleanup, "OPENSSL_cleanup");
  }
  template <typename Fn>
  void find(Fn& fn, const char* name) {
    fn = reinterpret_cast<Fn>(dlsym(handle, name));
  }
  bool complete() const { return handle != nullptr && cleanup != nullptr && digest != nullptr; }
};

// AES-128-GCM through the provider: an encryption with no IV, for which
// the provider draws one from libcrypto's RAND, that decrypts.
bool gcm_round_trip(OSSL_LIB_CTX* ctx) {
  EVP_CIPHER* gcm = EVP_CIPHER_fetch(ctx, "AES-128-GCM", "provider=cryptoaccel");
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  const std::array<unsigned char, 16> key{1, 2, 3};
  std::array<unsigned char, 12> iv{};
  std::array<unsigned char, 64> plain{7}, sealed{}, opened{};
  std::array<unsigned char, 16> tag{};
  int n = 0;
  bool ok = gcm != nullptr && c != nullptr &&
            EVP_EncryptInit_ex2(c, gcm, key.data(), nullptr, nullptr) == 1 &&
            EVP_EncryptUpdate(c, sealed.data(), &n, plain.data(), 64) == 1 &&
            EVP_EncryptFinal_ex(c, sealed.data() + n, &n) == 1 &&
            EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag.data()) == 1 &&
            EVP_CIPHER_CTX_get_updated_iv(c, iv.data(), iv.size()) == 1;
  ok = ok && EVP_DecryptInit_ex2(c, gcm, key.data(), iv.data(), nullptr) == 1 &&
       EVP_DecryptUpdate(c, opened.data(), &n, sealed.data(), 64) == 1 &&
       EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, 16, tag.data()) == 1 &&
       EVP_DecryptFinal_ex(c, opened.data() + n, &n) == 1 && opened == plain;
  EVP_CIPHER_CTX_free(c);
  EVP_CIPHER_free(gcm);
  return ok;
}

class TwoLibcryptos : public testing::Test {
 protected:
  void SetUp() override {
    // A directory per test: a libcrypto cannot be unloaded, and one that
    // was cleaned up cannot be used again.
    dir_ = fs::path(testing::TempDir()) /
           ("two-libcryptos-" + std::to_string(getpid()) + "-" +
            testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    const std::string own = own_libcrypto();
    ASSERT_FALSE(own.empty());
    fs::copy_file(own, dir_ / fs::path(own).filename(), fs::copy_options::overwrite_existing);
    second_path_ = (dir_ / fs::path(own).filename()).string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::string second_path_;
};

TEST_F(TwoLibcryptos, TheSecondIsRefusedWithTheReasonAndTheFirstServesOn) {
  OSSL_LIB_CTX* first = OSSL_LIB_CTX_new();
  OSSL_PROVIDER* ours = OSSL_PROVIDER_load(first, CRYPTOACCEL_PROVIDER_MODULE);
  ASSERT_NE(ours, nullptr) << openssl_errors();
  ASSERT_TRUE(gcm_round_trip(first)) << openssl_errors();

  SecondLibcrypto second(second_path_);
  ASSERT_TRUE(second.complete()) << dlerror();
  OSSL_LIB_CTX* other = second.lib_ctx_new();
  testing::internal::CaptureStderr();
  OSSL_PROVIDER* refused = second.provider_load(other, CRYPTOACCEL_PROVIDER_MODULE);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(refused, nullptr) << "the module took a second libcrypto";
  EXPECT_NE(said.find("already serves the libcrypto at " + own_libcrypto()), std::string::npos)
      << said;
  if (refused != nullptr) second.provider_unload(refused);
  second.lib_ctx_free(other);
  second.cleanup();  // all of the second library's state is gone

  // The first's calls still go to the first.
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(gcm_round_trip(first)) << openssl_errors();
  EXPECT_TRUE(provider_sha256_right(first)) << openssl_errors();
  EXPECT_NE(provider_stats(ours).find("aes-128-gcm"), std::string::npos) << provider_stats(ours);
  OSSL_PROVIDER_unload(ours);
  OSSL_LIB_CTX_free(first);
}

TEST_F(TwoLibcryptos, ACopyOfTheModuleUnderAnotherNameServesTheSecond) {
  OSSL_LIB_CTX* first = OSSL_LIB_CTX_new();
  OSSL_PROVIDER* ours = OSSL_PROVIDER_load(first, CRYPTOACCEL_PROVIDER_MODULE);
  ASSERT_NE(ours, nullptr) << openssl_errors();

  const std::string copy = (dir_ / "cryptoaccel-second.so").string();
  fs::copy_file(CRYPTOACCEL_PROVIDER_MODULE, copy);
  SecondLibcrypto second(second_path_);
  ASSERT_TRUE(second.complete()) << dlerror();
  OSSL_LIB_CTX* other = second.lib_ctx_new();
  OSSL_PROVIDER* theirs = second.provider_load(other, copy.c_str());
  ASSERT_NE(theirs, nullptr);
  EXPECT_TRUE(provider_sha256_right(other, 1, second.md_fetch, second.digest, second.md_free));
  EXPECT_TRUE(provider_sha256_right(first)) << openssl_errors();
  EXPECT_TRUE(gcm_round_trip(first)) << openssl_errors();
  second.provider_unload(theirs);
  second.lib_ctx_free(other);
  OSSL_PROVIDER_unload(ours);
  OSSL_LIB_CTX_free(first);
}

// Loaded, used, unloaded and loaded again, in one library context and in a
// fresh one: each load serves.
TEST(ProviderReload, EachLoadServes) {
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
    for (int load = 0; load < 2; ++load) {
      OSSL_PROVIDER* ours = OSSL_PROVIDER_load(ctx, CRYPTOACCEL_PROVIDER_MODULE);
      ASSERT_NE(ours, nullptr) << openssl_errors();
      EXPECT_TRUE(gcm_round_trip(ctx)) << openssl_errors();
      EXPECT_TRUE(provider_sha256_right(ctx)) << openssl_errors();
      OSSL_PROVIDER_unload(ours);
    }
    OSSL_LIB_CTX_free(ctx);
  }
}

}  // namespace
