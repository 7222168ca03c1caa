// cryptoaccel.so links to no libcrypto and binds its calls to the one that
// loads it (src/provider/libcrypto_binding.hpp). Here, in one process:
// a core whose functions are not in a libcrypto, and one in a "libcrypto"
// that lacks every function, are refused with the reason; with that second
// libcrypto loaded before the module (two in the process, so none is bound
// at load), OpenSSL's own load binds to the real one and the module serves.
// The module's dependencies are checked by tests/provider/libcrypto-binding.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

#include "openssl_errors.hpp"
#include "provider_sha256.hpp"

namespace {

using cryptoaccel::test::openssl_errors;
using cryptoaccel::test::provider_sha256_right;

extern "C" int not_a_core_function() { return 0; }

// What OSSL_provider_init printed on stderr while `call` ran.
template <typename Call>
std::string stderr_of(Call call) {
  std::fflush(stderr);
  FILE* capture = std::tmpfile();
  const int saved = ::dup(2);
  ::dup2(::fileno(capture), 2);
  call();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::string text;
  std::rewind(capture);
  for (int c; (c = std::fgetc(capture)) != EOF;) text += static_cast<char>(c);
  std::fclose(capture);
  return text;
}

using ProviderInit = int(const OSSL_CORE_HANDLE*, const OSSL_DISPATCH*, const OSSL_DISPATCH**,
                         void**);

class LibcryptoBinding : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    // First the stand-in, so that the module meets two libcryptos at load.
    fake_ = ::dlopen(CRYPTOACCEL_FAKE_LIBCRYPTO, RTLD_NOW | RTLD_LOCAL);
    module_ = ::dlopen(CRYPTOACCEL_PROVIDER_MODULE, RTLD_NOW | RTLD_LOCAL);
  }

  // OSSL_provider_init with a core table of one function at `core`.
  static std::pair<int, std::string> init_with_core(void (*core)()) {
    auto* init = reinterpret_cast<ProviderInit*>(::dlsym(module_, "OSSL_provider_init"));
    const std::array<OSSL_DISPATCH, 2> in = {
        {{OSSL_FUNC_CORE_GETTABLE_PARAMS, core}, {0, nullptr}}};
    const OSSL_DISPATCH* out = nullptr;
    void* provctx = nullptr;
    int result = -1;
    const std::string printed = stderr_of([&] { result = init(nullptr, in.data(), &out, &provctx); });
    return {result, printed};
  }

  static inline void* fake_ = nullptr;
  static inline void* module_ = nullptr;
};

TEST_F(LibcryptoBinding, TheModuleNeedsNoLibcrypto) {
  ASSERT_NE(fake_, nullptr) << dlerror();
  ASSERT_NE(module_, nullptr) << dlerror();
}

TEST_F(LibcryptoBinding, ACoreOutsideALibcryptoIsRefusedWithItsReason) {
  ASSERT_NE(module_, nullptr);
  const auto [result, printed] = init_with_core(reinterpret_cast<void (*)()>(&not_a_core_function));
  EXPECT_EQ(result, 0);
  EXPECT_NE(printed.find("cryptoaccel provider not loaded"), std::string::npos) << printed;
  EXPECT_NE(printed.find("not in a shared libcrypto"), std::string::npos) << printed;
}

TEST_F(LibcryptoBinding, ALibcryptoThatLacksFunctionsIsRefusedNamingThem) {
  ASSERT_NE(fake_, nullptr);
  auto* core = reinterpret_cast<void (*)()>(::dlsym(fake_, "cryptoaccel_fake_core_function"));
  ASSERT_NE(core, nullptr);
  const auto [result, printed] = init_with_core(core);
  EXPECT_EQ(result, 0);
  EXPECT_NE(printed.find("libcrypto.so.99 lacks"), std::string::npos) << printed;
  // The first missing names, in the list's order.
  EXPECT_NE(printed.find("ASYNC_WAIT_CTX_get_fd"), std::string::npos) << printed;
}

TEST_F(LibcryptoBinding, OpenSslsOwnLoadBindsToItsLibcryptoAndServes) {
  ASSERT_NE(module_, nullptr);
  OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
  ASSERT_NE(ctx, nullptr);
  OSSL_PROVIDER* provider = OSSL_PROVIDER_load(ctx, CRYPTOACCEL_PROVIDER_MODULE);
  ASSERT_NE(provider, nullptr) << openssl_errors();
  EXPECT_TRUE(provider_sha256_right(ctx)) << openssl_errors();
  OSSL_PROVIDER_unload(provider);
  OSSL_LIB_CTX_free(ctx);
}

}  // namespace
