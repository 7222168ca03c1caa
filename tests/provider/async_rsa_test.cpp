// RSA's private-key operations inside OpenSSL ASYNC jobs (async_workers.hpp):
// many jobs on one thread, driven as `openssl speed -async_jobs` drives
// them (a paused job is resumed only once its wait fd is readable), each
// signing or decrypting on the provider's workers. Every result must be
// what the default provider verifies or decrypted, the jobs must have
// paused, the workers must have had several operations in flight, and a
// failure on a worker must reach the job's caller as an OpenSSL error.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "async_rsa_fixture.hpp"

namespace {

using namespace cryptoaccel::test;

TEST_F(AsyncRsa, JobsSignOnTheWorkersAndTheDefaultVerifies) {
  ASSERT_NO_FATAL_FAILURE(load(""));
  constexpr int kJobs = 8, kEach = 4;
  struct Signed {
    int padding;
    Bytes digest, signature;
    bool ok = false;
  };
  std::vector<std::vector<Signed>> results(kJobs);
  std::vector<std::function<bool()>> work;
  for (int j = 0; j < kJobs; ++j) {
    for (int i = 0; i < kEach; ++i)
      results[j].push_back(
          {(i + j) % 2 == 0 ? RSA_PKCS1_PADDING : RSA_PKCS1_PSS_PADDING, random_bytes(32), {}});
    work.emplace_back([this, &mine = results[j]] {
      for (Signed& s : mine) s.ok = sign(s.padding, s.digest, s.signature);
      return true;
    });
  }
  const JobRun run = run_jobs(work);
  ASSERT_FALSE(run.stuck) << "a paused job's wait fd never became readable";
  // Not one pause per signature: a worker may finish before its job gets
  // to pause, and the job then goes on without.
  EXPECT_GT(run.pauses, 0) << "no job ever paused";
  for (int j = 0; j < kJobs; ++j)
    for (const Signed& s : results[j]) {
      ASSERT_TRUE(s.ok) << openssl_errors();
      EXPECT_TRUE(verifies(s.padding, s.digest, s.signature)) << "job " << j;
    }
  const auto [completed, peak] = async_counts();
  EXPECT_EQ(completed, kJobs * kEach) << stats();
  EXPECT_GE(peak, 2) << "the workers never had two operations at once\n" << stats();
}

TEST_F(AsyncRsa, JobsDecryptAndAFailureOnAWorkerReachesTheJob) {
  ASSERT_NO_FATAL_FAILURE(load("async_workers = 3\n"));
  constexpr int kJobs = 6;
  struct Decrypted {
    Bytes plain, cipher, result;
    std::string error;
    bool ok = false;
  };
  std::vector<Decrypted> results(kJobs);
  for (int j = 0; j < kJobs; ++j) {
    results[j].plain = random_bytes(static_cast<std::size_t>(1 + j * 30));
    results[j].cipher = encrypt_oaep(results[j].plain);
  }
  results[4].cipher[100] ^= 0x40;  // this one must fail, as OpenSSL's would
  std::vector<std::function<bool()>> work;
  for (int j = 0; j < kJobs; ++j)
    work.emplace_back([this, &r = results[j]] {
      r.ok = decrypt_oaep(r.cipher, r.result, r.error);
      return r.ok;
    });
  const JobRun run = run_jobs(work);
  ASSERT_FALSE(run.stuck) << "a paused job's wait fd never became readable";
  EXPECT_GT(run.pauses, 0) << "no job ever paused";
  for (int j = 0; j < kJobs; ++j) {
    SCOPED_TRACE("job " + std::to_string(j));
    if (j == 4) {
      EXPECT_FALSE(results[j].ok);
      EXPECT_TRUE(results[j].result.empty());
      EXPECT_NE(results[j].error.find("decrypt"), std::string::npos) << results[j].error;
      continue;
    }
    ASSERT_TRUE(results[j].ok) << results[j].error;
    EXPECT_EQ(results[j].result, results[j].plain);
  }
  const auto [completed, peak] = async_counts();
  EXPECT_EQ(completed, kJobs) << stats();
  EXPECT_LE(peak, kJobs);
}

// Outside a job the operation runs on the caller's thread, as before.
TEST_F(AsyncRsa, OutsideAJobNothingGoesToTheWorkers) {
  ASSERT_NO_FATAL_FAILURE(load(""));
  const Bytes digest = random_bytes(32);
  Bytes signature;
  ASSERT_TRUE(sign(RSA_PKCS1_PADDING, digest, signature)) << openssl_errors();
  EXPECT_TRUE(verifies(RSA_PKCS1_PADDING, digest, signature));
  EXPECT_EQ(async_counts().first, 0) << stats();
}

// `async = no`: jobs run their operations themselves and never pause.
TEST_F(AsyncRsa, AsyncNoKeepsOperationsInTheJob) {
  ASSERT_NO_FATAL_FAILURE(load("async = no\n"));
  Bytes digest = random_bytes(32), signature;
  bool ok = false;
  std::vector<std::function<bool()>> work{
      [&] { return ok = sign(RSA_PKCS1_PADDING, digest, signature); }};
  const JobRun run = run_jobs(work);
  EXPECT_EQ(run.pauses, 0);
  ASSERT_TRUE(ok) << openssl_errors();
  EXPECT_TRUE(verifies(RSA_PKCS1_PADDING, digest, signature));
  EXPECT_EQ(async_counts().first, 0) << stats();
}

TEST(AsyncRsaSettings, ABadWorkerCountFailsTheLoadNamingIt) {
  for (const char* bad : {"0", "65", "eight", "-1"}) {
    SCOPED_TRACE(bad);
    const std::string config =
        testing::TempDir() + "async-rsa-bad-" + std::to_string(getpid()) + ".cnf";
    std::ofstream(config) << "openssl_conf = openssl_init\n[openssl_init]\n"
                             "providers = provider_sect\n[provider_sect]\n"
                             "cryptoaccel = cryptoaccel_sect\n"
                             "[cryptoaccel_sect]\nmodule = " CRYPTOACCEL_PROVIDER_DIR
                             "/cryptoaccel.so\nactivate = 1\nasync_workers = "
                          << bad << "\n";
    OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
    // OpenSSL 3.0 goes on without a provider that fails to start; the
    // provider says why on stderr.
    testing::internal::CaptureStderr();
    OSSL_LIB_CTX_load_config(ctx, config.c_str());
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_EQ(OSSL_PROVIDER_available(ctx, "cryptoaccel"), 0);
    EXPECT_NE(said.find("async_workers '"), std::string::npos) << said;
    EXPECT_NE(said.find("from 1 to 64"), std::string::npos) << said;
    OSSL_LIB_CTX_free(ctx);
    std::remove(config.c_str());
    ERR_clear_error();
  }
}

}  // namespace
