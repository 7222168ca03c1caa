// `gather = yes`: AES-CBC inside OpenSSL ASYNC jobs, each job's request
// waiting, the job paused, for a burst with the others' (async_burst.hpp).
// Many jobs on one thread, driven as `openssl speed -async_jobs` drives
// them, each encrypting and decrypting its own messages in chained updates
// of different lengths: every byte must equal the default provider's, and
// the requests must have been served by mb in bursts.
#include <gtest/gtest.h>
#include <openssl/async.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "openssl_errors.hpp"
#include "provider_config.hpp"
#include "provider_stats.hpp"

namespace {

using Bytes = std::vector<unsigned char>;
using cryptoaccel::test::openssl_errors;
using cryptoaccel::test::provider_stats;
using cryptoaccel::test::write_provider_config;

Bytes random_bytes(std::size_t n) {
  Bytes b(n);
  if (n != 0) RAND_bytes(b.data(), static_cast<int>(n));
  return b;
}

// One job's work: a message encrypted and decrypted in updates of these
// lengths (the last one's remainder is padded by final).
struct JobWork {
  EVP_CIPHER* cipher = nullptr;
  Bytes key, iv, plain, cipher_text, decrypted;
  std::vector<std::size_t> cuts;
  bool ok = false;
};

bool run_direction(JobWork& w, bool encrypt, const Bytes& in, Bytes& out) {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  bool ok = ctx != nullptr && EVP_CipherInit_ex2(ctx, w.cipher, w.key.data(), w.iv.data(),
                                                 encrypt ? 1 : 0, nullptr) == 1;
  out.assign(in.size() + 16, 0);
  int total = 0;
  std::size_t done = 0;
  for (std::size_t cut : w.cuts) {
    if (!ok || done >= in.size()) break;
    const std::size_t n = std::min(cut, in.size() - done);
    int len = 0;
    ok =
        EVP_CipherUpdate(ctx, out.data() + total, &len, in.data() + done, static_cast<int>(n)) == 1;
    total += len;
    done += n;
  }
  if (ok && done < in.size()) {
    int len = 0;
    ok = EVP_CipherUpdate(ctx, out.data() + total, &len, in.data() + done,
                          static_cast<int>(in.size() - done)) == 1;
    total += len;
  }
  int len = 0;
  ok = ok && EVP_CipherFinal_ex(ctx, out.data() + total, &len) == 1;
  total += len;
  out.resize(static_cast<std::size_t>(total));
  EVP_CIPHER_CTX_free(ctx);
  return ok;
}

int job_main(void* arg) {
  JobWork& w = **static_cast<JobWork**>(arg);
  w.ok = run_direction(w, true, w.plain, w.cipher_text) &&
         run_direction(w, false, w.cipher_text, w.decrypted);
  return 1;
}

class AsyncGather : public testing::Test {
 protected:
  void SetUp() override {
    config_ = write_provider_config("gather", "gather = yes\n");
    ours_ = OSSL_LIB_CTX_new();
    ASSERT_EQ(OSSL_LIB_CTX_load_config(ours_, config_.c_str()), 1) << openssl_errors();
    cipher_ = EVP_CIPHER_fetch(ours_, "AES-128-CBC", "provider=cryptoaccel");
    ASSERT_NE(cipher_, nullptr) << openssl_errors();
    reference_ = EVP_CIPHER_fetch(nullptr, "AES-128-CBC", "provider=default");
    ASSERT_NE(reference_, nullptr) << openssl_errors();
  }
  void TearDown() override {
    EVP_CIPHER_free(cipher_);
    EVP_CIPHER_free(reference_);
    OSSL_LIB_CTX_free(ours_);
    std::remove(config_.c_str());
    ERR_clear_error();
  }

  // The provider's usage text (its `stats` parameter).
  std::string stats() { return provider_stats(ours_); }

  std::string config_;
  OSSL_LIB_CTX* ours_ = nullptr;
  EVP_CIPHER* cipher_ = nullptr;
  EVP_CIPHER* reference_ = nullptr;
};

TEST_F(AsyncGather, JobsOnOneThreadMeetInBurstsAndGetDefaultsBytes) {
  constexpr int kJobs = 20;
  std::vector<JobWork> work(kJobs);
  for (int j = 0; j < kJobs; ++j) {
    JobWork& w = work[j];
    w.cipher = cipher_;
    w.key = random_bytes(16);
    w.iv = random_bytes(16);
    // Every third job ends with a piece of about 16 KiB: its queued copy is
    // on the heap rather than the job's stack.
    w.plain = random_bytes(2048 * (1 + j % 5) + static_cast<std::size_t>(j) * 3 +
                           (j % 3 == 0 ? 16384 : 0));
    // Chained updates: 1 KiB and more (gathered), less (run at once) and a
    // partial block (buffered), so that the chain runs through both.
    w.cuts = {2048, 1024 + 5, 16 + static_cast<std::size_t>(j), 4096};
  }
  std::vector<ASYNC_JOB*> jobs(kJobs, nullptr);
  std::vector<ASYNC_WAIT_CTX*> waits(kJobs, nullptr);
  std::vector<bool> running(kJobs, true);
  for (int j = 0; j < kJobs; ++j) waits[j] = ASYNC_WAIT_CTX_new();
  // As openssl speed does: start every job, then resume each paused one in
  // turn until all have finished (our fd is readable when a job wants a
  // turn; this loop gives every paused job one).
  int unfinished = kJobs, rounds = 0;
  while (unfinished > 0 && rounds < 100000) {
    ++rounds;
    for (int j = 0; j < kJobs; ++j) {
      if (!running[j]) continue;
      int ret = 0;
      JobWork* arg = &work[j];
      const int status = ASYNC_start_job(&jobs[j], waits[j], &ret, job_main, &arg, sizeof arg);
      ASSERT_NE(status, ASYNC_ERR) << openssl_errors();
      ASSERT_NE(status, ASYNC_NO_JOBS);
      if (status == ASYNC_FINISH) {
        running[j] = false;
        --unfinished;
      }
    }
  }
  ASSERT_EQ(unfinished, 0) << "jobs still paused after " << rounds << " rounds";
  for (int j = 0; j < kJobs; ++j) {
    SCOPED_TRACE("job " + std::to_string(j));
    JobWork& w = work[j];
    ASSERT_TRUE(w.ok) << openssl_errors();
    JobWork reference = w;
    reference.cipher = reference_;
    ASSERT_TRUE(run_direction(reference, true, w.plain, reference.cipher_text));
    EXPECT_EQ(w.cipher_text, reference.cipher_text);
    EXPECT_EQ(w.decrypted, w.plain);
    ASYNC_WAIT_CTX_free(waits[j]);
  }
  const std::string usage = stats();
  if (usage.find("aes-128-cbc mb") == std::string::npos)
    GTEST_SKIP() << "no mb driver in this build or on this CPU: nothing was gathered\n" << usage;
  EXPECT_GT(rounds, 1) << "no job ever paused";
}

// Outside a job, `gather = yes` changes nothing: the same bytes, at once.
TEST_F(AsyncGather, OutsideAJobRequestsRunAtOnce) {
  JobWork w;
  w.cipher = cipher_;
  w.key = random_bytes(16);
  w.iv = random_bytes(16);
  w.plain = random_bytes(5000);
  w.cuts = {1024, 3000};
  JobWork reference = w;
  reference.cipher = reference_;
  ASSERT_TRUE(run_direction(w, true, w.plain, w.cipher_text)) << openssl_errors();
  ASSERT_TRUE(run_direction(reference, true, w.plain, reference.cipher_text));
  EXPECT_EQ(w.cipher_text, reference.cipher_text);
}

}  // namespace
