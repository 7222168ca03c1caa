// cryptoaccel.so is always dlopen()ed: it must load, and serve, in a process
// that has used up glibc's static TLS reserve for dlopen()ed libraries (a
// plugin host whose other plugins use initial-exec TLS). Here the reserve is
// filled by libraries of 8 KiB down to 16 bytes of initial-exec TLS, each
// loaded if it still fits, until one more of 16 bytes no longer does; then
// OpenSSL loads the provider and a digest runs through it.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <string>

#include "openssl_errors.hpp"
#include "provider_sha256.hpp"
#include "provider_stats.hpp"

namespace {

using cryptoaccel::test::openssl_errors;
using cryptoaccel::test::provider_sha256_right;
using cryptoaccel::test::provider_stats;

// Loads the filler of `bytes`; false when it did not fit.
bool load_filler(const std::string& name) {
  const std::string path = std::string(CRYPTOACCEL_FILLER_DIR "/libstatic_tls_") + name + ".so";
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) != nullptr) return true;
  const std::string why = dlerror();
  EXPECT_NE(why.find("static TLS"), std::string::npos) << why;
  return false;
}

TEST(StaticTls, TheProviderLoadsAndServesWithTheReserveUsedUp) {
  for (const char* size : {"8192", "4096", "2048", "1024", "512", "256", "128", "64", "32", "16"})
    load_filler(size);
  ASSERT_FALSE(load_filler("16_probe")) << "the static TLS reserve is not used up";

  OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
  ASSERT_NE(ctx, nullptr);
  OSSL_PROVIDER* provider = OSSL_PROVIDER_load(ctx, CRYPTOACCEL_PROVIDER_MODULE);
  ASSERT_NE(provider, nullptr) << openssl_errors();
  // Past one batch of the direct path's per-thread counts.
  EXPECT_TRUE(provider_sha256_right(ctx, 300)) << openssl_errors();
  EXPECT_NE(provider_stats(provider).find("sha256"), std::string::npos) << provider_stats(provider);
  OSSL_PROVIDER_unload(provider);
  OSSL_LIB_CTX_free(ctx);
}

}  // namespace
