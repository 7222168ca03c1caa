// The fixture of the provider's ASYNC tests (async_rsa_test.cpp,
// hostile_async_test.cpp): cryptoaccel loaded from the build with OpenSSL's
// default beside it, an RSA key of ours and its public half in the default
// provider to check with, and jobs driven as `openssl speed -async_jobs`
// drives them.
#pragma once

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

#include <algorithm>
#include <cstdio>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "openssl_errors.hpp"
#include "provider_config.hpp"
#include "provider_stats.hpp"

namespace cryptoaccel::test {

using Bytes = std::vector<unsigned char>;

inline Bytes random_bytes(std::size_t n) {
  Bytes b(n);
  RAND_bytes(b.data(), static_cast<int>(n));
  return b;
}

// What each job runs: a function of its own.
inline int job_main(void* arg) {
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
inline JobRun run_jobs(std::vector<std::function<bool()>>& work) {
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
  void load(const std::string& settings, std::size_t bits = 2048) {
    config_ = write_provider_config("async-rsa", settings);
    ours_ = OSSL_LIB_CTX_new();
    ASSERT_EQ(OSSL_LIB_CTX_load_config(ours_, config_.c_str()), 1) << openssl_errors();
    key_ = EVP_PKEY_Q_keygen(ours_, "provider=cryptoaccel", "RSA", bits);
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

  std::string stats() { return provider_stats(ours_); }

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

}  // namespace cryptoaccel::test
