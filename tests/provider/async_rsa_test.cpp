// RSA's private-key operations inside OpenSSL ASYNC jobs (async_workers.hpp):
// many jobs on one thread, driven as `openssl speed -async_jobs` drives
// them (a paused job is resumed only once its wait fd is readable), each
// signing or decrypting on the provider's workers. Every result must be
// what the default provider verifies or decrypted, the jobs must have
// paused, the workers must have had several operations in flight, and a
// failure on a worker must reach the job's caller as an OpenSSL error.
#include <gtest/gtest.h>
#include <openssl/async.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <sys/select.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "openssl_errors.hpp"

namespace {

using Bytes = std::vector<unsigned char>;
using cryptoaccel::test::openssl_errors;

Bytes random_bytes(std::size_t n) {
  Bytes b(n);
  RAND_bytes(b.data(), static_cast<int>(n));
  return b;
}

// What each job runs: a function of its own.
int job_main(void* arg) {
  (**static_cast<std::function<bool()>**>(arg))();
  return 1;
}

struct JobRun {
  int pauses = 0;  // ASYNC_start_job answers ASYNC_PAUSE
  bool stuck = false;
};

// Starts every job, then waits in select() on the paused jobs' wait fds and
// resumes the ones readable, as openssl speed does: a job whose fd is
// never signalled would hang there, so select's timeout fails the run.
JobRun run_jobs(std::vector<std::function<bool()>>& work) {
  const std::size_t n = work.size();
  std::vector<ASYNC_JOB*> jobs(n, nullptr);
  std::vector<ASYNC_WAIT_CTX*> waits(n, nullptr);
  std::vector<bool> running(n, true);
  for (auto& w : waits) w = ASYNC_WAIT_CTX_new();
  JobRun run;
  const auto turn = [&](std::size_t j) {
    int ret = 0;
    std::function<bool()>* arg = &work[j];
    const int status = ASYNC_start_job(&jobs[j], waits[j], &ret, job_main, &arg, sizeof arg);
    EXPECT_NE(status, ASYNC_ERR) << openssl_errors();
    if (status == ASYNC_PAUSE)
      ++run.pauses;
    else
      running[j] = false;
  };
  for (std::size_t j = 0; j < n; ++j) turn(j);
  for (;;) {
    fd_set readable;
    FD_ZERO(&readable);
    int top = -1;
    std::vector<OSSL_ASYNC_FD> fds(n, -1);
    for (std::size_t j = 0; j < n; ++j) {
      if (!running[j]) continue;
      size_t count = 0;
      EXPECT_EQ(ASYNC_WAIT_CTX_get_all_fds(waits[j], nullptr, &count), 1);
      EXPECT_EQ(count, 1u) << "openssl speed refuses a job with other than one fd";
      if (count != 1) return run;
      ASYNC_WAIT_CTX_get_all_fds(waits[j], &fds[j], &count);
      FD_SET(fds[j], &readable);
      top = std::max(top, fds[j]);
    }
    if (top < 0) break;
    timeval limit{20, 0};
    if (select(top + 1, &readable, nullptr, nullptr, &limit) <= 0) {
      run.stuck = true;
      break;
    }
    for (std::size_t j = 0; j < n; ++j)
      if (running[j] && FD_ISSET(fds[j], &readable)) turn(j);
  }
  for (auto& w : waits) ASYNC_WAIT_CTX_free(w);
  return run;
}

class AsyncRsa : public testing::Test {
 protected:
  void load(const std::string& settings) {
    config_ = testing::TempDir() + "async-rsa-" + std::to_string(getpid()) + ".cnf";
    std::ofstream(config_) << "openssl_conf = openssl_init\n[openssl_init]\n"
                              "providers = provider_sect\n[provider_sect]\n"
                              "cryptoaccel = cryptoaccel_sect\ndefault = default_sect\n"
                              "[cryptoaccel_sect]\nmodule = " CRYPTOACCEL_PROVIDER_DIR
                              "/cryptoaccel.so\nactivate = 1\n"
                           << settings << "[default_sect]\nactivate = 1\n";
    ours_ = OSSL_LIB_CTX_new();
    ASSERT_EQ(OSSL_LIB_CTX_load_config(ours_, config_.c_str()), 1) << openssl_errors();
    key_ = EVP_PKEY_Q_keygen(ours_, "provider=cryptoaccel", "RSA", size_t{2048});
    ASSERT_NE(key_, nullptr) << openssl_errors();
    // The same key's public half in the default provider, to check with.
    unsigned char* der = nullptr;
    const int length = i2d_PUBKEY(key_, &der);
    ASSERT_GT(length, 0) << openssl_errors();
    const unsigned char* p = der;
    reference_ = d2i_PUBKEY_ex(nullptr, &p, length, nullptr, "provider=default");
    OPENSSL_free(der);
    ASSERT_NE(reference_, nullptr) << openssl_errors();
  }
  void TearDown() override {
    EVP_PKEY_free(key_);
    EVP_PKEY_free(reference_);
    OSSL_LIB_CTX_free(ours_);
    if (!config_.empty()) std::remove(config_.c_str());
    ERR_clear_error();
  }

  std::string stats() {
    OSSL_PROVIDER* p = OSSL_PROVIDER_load(ours_, "cryptoaccel");
    char* text = nullptr;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_ptr("stats", &text, 0), OSSL_PARAM_END};
    std::string out;
    if (p != nullptr && OSSL_PROVIDER_get_params(p, params) == 1 && text != nullptr) out = text;
    if (p != nullptr) OSSL_PROVIDER_unload(p);
    return out;
  }

  // "async: N private-key operations ..., at most M at once": {N, M}, or
  // {0, 0} without the line.
  std::pair<int, int> async_counts() {
    const std::string text = stats();
    std::smatch m;
    if (!std::regex_search(text, m, std::regex(R"(async: (\d+) .* at most (\d+) at once)")))
      return {0, 0};
    return {std::stoi(m[1]), std::stoi(m[2])};
  }

  bool sign(int padding, const Bytes& digest, Bytes& signature) {
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(ours_, key_, "provider=cryptoaccel");
    size_t length = 256;
    signature.assign(length, 0);
    const bool ok =
        ctx != nullptr && EVP_PKEY_sign_init(ctx) == 1 &&
        EVP_PKEY_CTX_set_rsa_padding(ctx, padding) == 1 &&
        EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1 &&
        EVP_PKEY_sign(ctx, signature.data(), &length, digest.data(), digest.size()) == 1;
    signature.resize(length);
    EVP_PKEY_CTX_free(ctx);
    return ok;
  }

  bool verifies(int padding, const Bytes& digest, const Bytes& signature) {
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(nullptr, reference_, "provider=default");
    const bool ok =
        ctx != nullptr && EVP_PKEY_verify_init(ctx) == 1 &&
        EVP_PKEY_CTX_set_rsa_padding(ctx, padding) == 1 &&
        EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1 &&
        EVP_PKEY_verify(ctx, signature.data(), signature.size(), digest.data(), digest.size()) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
  }

  Bytes encrypt_oaep(const Bytes& plain) {
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(nullptr, reference_, "provider=default");
    size_t length = 256;
    Bytes out(length);
    const bool ok = ctx != nullptr && EVP_PKEY_encrypt_init(ctx) == 1 &&
                    EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) == 1 &&
                    EVP_PKEY_encrypt(ctx, out.data(), &length, plain.data(), plain.size()) == 1;
    EVP_PKEY_CTX_free(ctx);
    EXPECT_TRUE(ok) << openssl_errors();
    out.resize(length);
    return out;
  }

  // Our decryption; false with the error queue's text in `error` on failure.
  bool decrypt_oaep(const Bytes& in, Bytes& plain, std::string& error) {
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(ours_, key_, "provider=cryptoaccel");
    size_t length = 256;
    plain.assign(length, 0);
    const bool ok = ctx != nullptr && EVP_PKEY_decrypt_init(ctx) == 1 &&
                    EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) == 1 &&
                    EVP_PKEY_decrypt(ctx, plain.data(), &length, in.data(), in.size()) == 1;
    plain.resize(ok ? length : 0);
    if (!ok) error = openssl_errors();
    EVP_PKEY_CTX_free(ctx);
    return ok;
  }

  std::string config_;
  OSSL_LIB_CTX* ours_ = nullptr;
  EVP_PKEY* key_ = nullptr;
  EVP_PKEY* reference_ = nullptr;
};

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
