// The provider's ASYNC path against a hostile caller (async_workers.hpp):
// - a job abandoned while its private-key operation is queued, running on
//   a worker, or finished but not resumed, its buffers and context freed
//   and its wait context freed (what OpenSSL 3.0's SSL_free does to a
//   paused handshake): the worker must write into nothing freed, neither
//   the buffers (a page unmapped here: a write crashes the test) nor the
//   wait fd's number, which the test hands to a file at once; and a
//   `gather = yes` AES-CBC job abandoned while its request waits in mb's
//   queue: the next job's burst must not run it with the freed context's
//   keys into the freed output;
// - fork before the workers started, after, and while jobs are paused on
//   them: the child's own jobs complete on threads of its own, an operation
//   running at the fork ends first, and one queued fails in the child with
//   the reason instead of leaving its job paused for ever;
// - exit() and OPENSSL_cleanup() with signs running on the workers and
//   more queued: the workers stop before libcrypto frees what they use.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "async_rsa_fixture.hpp"

namespace {

using namespace cryptoaccel::test;

constexpr std::size_t kPage = 4096;
constexpr int kBytes = 4096;  // an AES-CBC update gathered (from 2 KiB on)

// One EVP_PKEY_sign in a job of its own, started and left paused. The
// digest and the signature live in a page of their own.
struct PausedSign {
  ASYNC_JOB* job = nullptr;
  ASYNC_WAIT_CTX* wait = nullptr;
  EVP_PKEY_CTX* ctx = nullptr;
  unsigned char* page = nullptr;  // the digest at 0, the signature at 64
  size_t length = 0;
  int fd = -1;
  std::function<bool()> work;
  std::function<bool()>* arg = &work;

  Bytes digest() const { return Bytes(page, page + 32); }
  Bytes signature() const { return Bytes(page + 64, page + 64 + length); }
  // ASYNC_start_job's answer: ASYNC_PAUSE, ASYNC_FINISH (result in `ok`).
  int resume(bool& ok) {
    int ret = 0;
    const int status = ASYNC_start_job(&job, wait, &ret, job_main, &arg, sizeof arg);
    ok = status == ASYNC_FINISH && result;
    return status;
  }
  bool result = false;
  bool paused = false;  // the first start paused
};

class HostileAsync : public AsyncRsa {
 protected:
  void TearDown() override {
    for (PausedSign* p : kept_) {
      if (p->page != nullptr) munmap(p->page, kPage);
      ASYNC_WAIT_CTX_free(p->wait);
      EVP_PKEY_CTX_free(p->ctx);
      delete p;
    }
    AsyncRsa::TearDown();
  }

  // Starts a sign in a job; with a 4096-bit key the job pauses (the worker
  // takes milliseconds), with 2048 bits the worker may be done first.
  // `started_` counts the operations the workers are given.
  PausedSign* start() {
    ++started_;
    auto* p = new PausedSign;
    kept_.push_back(p);
    void* page = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(page, MAP_FAILED);
    p->page = static_cast<unsigned char*>(page);
    RAND_bytes(p->page, 32);
    p->wait = ASYNC_WAIT_CTX_new();
    p->ctx = EVP_PKEY_CTX_new_from_pkey(ours_, key_, "provider=cryptoaccel");
    EXPECT_TRUE(p->ctx != nullptr && EVP_PKEY_sign_init(p->ctx) == 1 &&
                EVP_PKEY_CTX_set_rsa_padding(p->ctx, RSA_PKCS1_PADDING) == 1 &&
                EVP_PKEY_CTX_set_signature_md(p->ctx, EVP_sha256()) == 1)
        << openssl_errors();
    p->work = [p] {
      p->length = 512;
      p->result = EVP_PKEY_sign(p->ctx, p->page + 64, &p->length, p->page, 32) == 1;
      return p->result;
    };
    bool ok = false;
    p->paused = p->resume(ok) == ASYNC_PAUSE;
    size_t count = 0;
    ASYNC_WAIT_CTX_get_all_fds(p->wait, nullptr, &count);
    EXPECT_EQ(count, 1u);
    if (count == 1) ASYNC_WAIT_CTX_get_all_fds(p->wait, &p->fd, &count);
    return p;
  }

  // A sign whose job paused on a worker. A worker may be done before its
  // job gets to pause (the contract allows it; seen now and then with a
  // 4096-bit key on a loaded machine): such a job finished, with nothing
  // to abandon, and another is started.
  PausedSign* start_paused() {
    for (int i = 0; i < 5; ++i) {
      PausedSign* p = start();
      if (p->paused) return p;
    }
    ADD_FAILURE() << "no sign paused in 5";
    return start();
  }

  // What SSL_free does to a paused handshake, and more: the buffers, the
  // operation's context and the wait context go, the job is never resumed.
  // The wait fd's number, if it is free, goes at once to a file of the
  // test's, which must stay empty. Returns that file (or -1).
  int abandon(PausedSign* p) {
    EXPECT_TRUE(p->paused) << "the sign did not pause on a worker";
    munmap(p->page, kPage);
    p->page = nullptr;
    EVP_PKEY_CTX_free(p->ctx);
    p->ctx = nullptr;
    ASYNC_WAIT_CTX_free(p->wait);
    p->wait = nullptr;
    if (fcntl(p->fd, F_GETFD) != -1) return -1;  // still the provider's
    const std::string path = testing::TempDir() + "hostile-async-" + std::to_string(getpid());
    const int file = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    unlink(path.c_str());
    EXPECT_GE(file, 0);
    if (file != p->fd) {
      EXPECT_EQ(dup2(file, p->fd), p->fd);
      close(file);
    }
    return p->fd;
  }

  // Waits until the workers have completed all they were given.
  void wait_for_workers() {
    const int n = started_;
    for (int i = 0; i < 2000 && async_counts().first < n; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_GE(async_counts().first, n) << stats();
  }

  static void expect_untouched(int file) {
    if (file < 0) return;
    struct stat st {};
    ASSERT_EQ(fstat(file, &st), 0);
    EXPECT_EQ(st.st_size, 0) << "a worker wrote into a file that took the wait fd's number";
    close(file);
  }

  // Resumes `p` whenever its fd is readable (or every 100 ms, as s_server
  // tries every paused connection) until it finishes; false after 20 s.
  static bool finish(PausedSign* p, bool& ok) {
    for (int i = 0; i < 200; ++i) {
      pollfd readable{p->fd, POLLIN, 0};
      poll(&readable, 1, 100);
      if (p->resume(ok) != ASYNC_PAUSE) return true;
    }
    return false;
  }

  // One sign in a job, resumed when its fd is readable, verified: 0 when
  // all went well, 3 when it stayed paused, 4 when it failed, 5 when the
  // signature is wrong.
  int sign_in_job() {
    PausedSign* p = start();
    bool ok = p->result;
    if (p->paused && !finish(p, ok)) return 3;
    if (!ok) return 4;
    return verifies(RSA_PKCS1_PADDING, p->digest(), p->signature()) ? 0 : 5;
  }

  std::vector<PausedSign*> kept_;
  int started_ = 0;
};

TEST_F(HostileAsync, AJobAbandonedWhileQueuedLeavesNothingFreedToTheWorker) {
  ASSERT_NO_FATAL_FAILURE(load("async_workers = 1\n", 4096));
  PausedSign* first = start_paused();  // keeps the one worker busy
  PausedSign* queued = start_paused();
  const int file = abandon(queued);
  bool ok = false;
  ASSERT_TRUE(finish(first, ok)) << "the first job never finished";
  ASSERT_TRUE(ok) << openssl_errors();
  EXPECT_TRUE(verifies(RSA_PKCS1_PADDING, first->digest(), first->signature()));
  ASSERT_NO_FATAL_FAILURE(wait_for_workers());
  expect_untouched(file);
}

TEST_F(HostileAsync, AJobAbandonedWhileItsOperationRunsLeavesNothingFreedToTheWorker) {
  ASSERT_NO_FATAL_FAILURE(load("async_workers = 2\n", 4096));
  std::vector<int> files;
  for (int i = 0; i < 4; ++i) files.push_back(abandon(start_paused()));
  ASSERT_NO_FATAL_FAILURE(wait_for_workers());
  for (int file : files) expect_untouched(file);
}

TEST_F(HostileAsync, AJobAbandonedAfterItsOperationFinishedCostsNothing) {
  ASSERT_NO_FATAL_FAILURE(load("async_workers = 1\n"));
  PausedSign* p = start_paused();
  pollfd readable{p->fd, POLLIN, 0};
  ASSERT_EQ(poll(&readable, 1, 20000), 1) << "the worker never signalled";
  expect_untouched(abandon(p));
  EXPECT_EQ(sign_in_job(), 0) << "the provider serves on";
}

// `gather = yes`: an AES-CBC update of a job waits in mb's queue for other
// jobs' to run in one burst. A job abandoned there, its buffers and its
// cipher context freed, must leave the next job's burst nothing freed to
// read (the context's key schedule) or write (its output).
TEST_F(HostileAsync, AGatheringJobAbandonedWhileQueuedLeavesNothingFreedToTheBurst) {
  ASSERT_NO_FATAL_FAILURE(load("gather = yes\n"));
  EVP_CIPHER* cbc = EVP_CIPHER_fetch(ours_, "AES-128-CBC", "provider=cryptoaccel");
  ASSERT_NE(cbc, nullptr) << openssl_errors();
  const Bytes key = random_bytes(16), iv = random_bytes(16);
  struct Job {
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    ASYNC_JOB* job = nullptr;
    ASYNC_WAIT_CTX* wait = ASYNC_WAIT_CTX_new();
    unsigned char* page = nullptr;  // the plaintext at 0, the ciphertext at kPage / 2
    std::function<bool()> work;
    std::function<bool()>* arg = &work;
    int resume() {
      int ret = 0;
      return ASYNC_start_job(&job, wait, &ret, job_main, &arg, sizeof arg);
    }
  };
  const auto make = [&] {
    auto* j = new Job;
    j->page = static_cast<unsigned char*>(
        mmap(nullptr, 2 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    RAND_bytes(j->page, kBytes);
    EXPECT_EQ(EVP_EncryptInit_ex2(j->ctx, cbc, key.data(), iv.data(), nullptr), 1);
    j->work = [j] {
      int n = 0;
      return EVP_EncryptUpdate(j->ctx, j->page + kPage, &n, j->page, kBytes) == 1 && n == kBytes;
    };
    return j;
  };
  Job* abandoned = make();
  if (abandoned->resume() != ASYNC_PAUSE) GTEST_SKIP() << "no gathering driver (mb) here";
  Job* next = make();  // its page made first: it must not take the abandoned one's
  OSSL_ASYNC_FD fd = -1;
  size_t count = 1;
  ASSERT_EQ(ASYNC_WAIT_CTX_get_all_fds(abandoned->wait, &fd, &count), 1);
  munmap(abandoned->page, 2 * kPage);
  EVP_CIPHER_CTX_free(abandoned->ctx);
  ASYNC_WAIT_CTX_free(abandoned->wait);
  // No worker holds the waiting job's descriptor, and the job none either.
  EXPECT_EQ(fcntl(fd, F_GETFD), -1) << "the abandoned job's wait fd stays open";
  int status = next->resume();
  for (int i = 0; i < 200 && status == ASYNC_PAUSE; ++i) status = next->resume();
  ASSERT_EQ(status, ASYNC_FINISH);
  // The default provider's ciphertext of the same bytes.
  EVP_CIPHER_CTX* reference = EVP_CIPHER_CTX_new();
  EVP_CIPHER* theirs = EVP_CIPHER_fetch(nullptr, "AES-128-CBC", "provider=default");
  Bytes expected(kBytes);
  int n = 0;
  ASSERT_TRUE(EVP_EncryptInit_ex2(reference, theirs, key.data(), iv.data(), nullptr) == 1 &&
              EVP_EncryptUpdate(reference, expected.data(), &n, next->page, kBytes) == 1);
  EXPECT_EQ(Bytes(next->page + kPage, next->page + kPage + kBytes), expected);
  EVP_CIPHER_CTX_free(reference);
  EVP_CIPHER_free(theirs);
  EVP_CIPHER_CTX_free(next->ctx);
  ASYNC_WAIT_CTX_free(next->wait);
  munmap(next->page, 2 * kPage);
  delete next;
  EVP_CIPHER_free(cbc);
}

// Runs `body` in a fork child with a watchdog; its exit status.
template <typename Body>
int in_child(Body body) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(30);  // a job paused for ever ends here, as a failure
    _exit(body());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

using HostileFork = HostileAsync;

TEST_F(HostileFork, BeforeTheWorkersStartedTheChildSigns) {
  ASSERT_NO_FATAL_FAILURE(load(""));
  EXPECT_EQ(in_child([&] { return sign_in_job(); }), 0);
  EXPECT_EQ(sign_in_job(), 0);
}

TEST_F(HostileFork, AfterTheWorkersStartedTheChildSignsOnThreadsOfItsOwn) {
  ASSERT_NO_FATAL_FAILURE(load(""));
  ASSERT_EQ(sign_in_job(), 0);  // the workers run now
  EXPECT_EQ(in_child([&] { return sign_in_job(); }), 0);
  EXPECT_EQ(sign_in_job(), 0);
}

// Every worker idle, waiting for work, at the fork: the child inherits
// condition variables that count waiters it does not have. It must still
// sign, several times, on threads of its own.
TEST_F(HostileFork, WithEveryWorkerWaitingTheChildSignsAgainAndAgain) {
  ASSERT_NO_FATAL_FAILURE(load(""));
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 7; ++i) ASSERT_EQ(sign_in_job(), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the workers wait again
    EXPECT_EQ(in_child([&] {
                for (int i = 0; i < 5; ++i)
                  if (const int failed = sign_in_job(); failed != 0) return failed;
                return 0;
              }),
              0)
        << "round " << round;
  }
}

// With one worker, one job's sign runs (or is about to) and another's waits
// at the fork: fork() lets a running one end first (the child must inherit
// no lock a worker holds), so in the child each inherited job finishes,
// signed or failed with the reason, and a new sign works; in the parent
// both sign. The parent waits for the child before it resumes its jobs:
// the two share the wait fds' eventfds (fork copies descriptors), so both
// polling them would take each other's signals.
TEST_F(HostileFork, JobsPausedAtTheForkFinishInTheChildAndInTheParent) {
  ASSERT_NO_FATAL_FAILURE(load("async_workers = 1\n", 4096));
  PausedSign* running = start_paused();
  PausedSign* queued = start_paused();
  ASSERT_TRUE(running->paused && queued->paused) << openssl_errors();
  const int child = in_child([&] {
    for (PausedSign* p : {running, queued}) {
      bool ok = false;
      if (!finish(p, ok)) return 3;  // paused for ever
      if (!ok && openssl_errors().find("forked") == std::string::npos) return 7;
    }
    return sign_in_job();
  });
  EXPECT_EQ(child, 0) << "3: paused for ever, 7: failed without the reason, 4, 5: no new sign";
  for (PausedSign* p : {running, queued}) {
    bool ok = false;
    ASSERT_TRUE(finish(p, ok)) << "the parent's job never finished";
    ASSERT_TRUE(ok) << openssl_errors();
    EXPECT_TRUE(verifies(RSA_PKCS1_PADDING, p->digest(), p->signature()));
  }
}

class HostileExit : public HostileAsync {
 protected:
  // Starts 8 4096-bit signs in jobs on two workers (two run, the rest wait)
  // and ends the process with `end`, in a fork child, 6 times: how many
  // children did not exit with 0, and the last such one's status (128 + N:
  // killed by signal N).
  template <typename End>
  std::pair<int, int> end_with_signs_in_flight(End end) {
    constexpr int kRounds = 6, kSigns = 8;
    int failed = 0, last = 0;
    for (int round = 0; round < kRounds; ++round) {
      const int status = in_child([&] {
        for (int i = 0; i < kSigns; ++i) (void)start();
        end();
        return 0;
      });
      if (status != 0) ++failed, last = status;
    }
    return {failed, last};
  }
};

TEST_F(HostileExit, ExitWithSignsRunningAndQueuedEndsCleanly) {
  ASSERT_NO_FATAL_FAILURE(load("async_workers = 2\n", 4096));
  const auto [failed, status] = end_with_signs_in_flight([] { std::exit(0); });
  EXPECT_EQ(failed, 0) << "exit status " << status;
}

TEST_F(HostileExit, OpensslCleanupWithSignsRunningAndQueuedEndsCleanly) {
  ASSERT_NO_FATAL_FAILURE(load("async_workers = 2\n", 4096));
  const auto [failed, status] = end_with_signs_in_flight([] {
    OPENSSL_cleanup();
    std::exit(0);
  });
  EXPECT_EQ(failed, 0) << "exit status " << status;
}

}  // namespace
