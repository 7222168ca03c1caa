// A program may call exit() while its other threads are still inside the
// library: exit() runs static destructors but does not stop those threads.
// Whatever the library keeps for the process (the framework, its registry and
// drivers) must outlive them, so exit() ends the process cleanly instead of
// crashing a thread that is looking up a driver.
#include <gtest/gtest.h>
#include <openssl/crypto.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "cryptoaccel/cryptoaccel.hpp"
#include "test_util.hpp"

namespace cryptoaccel {
namespace {

// Four threads open sessions and run requests until the process ends; the
// main thread calls exit() after `delay`. Never returns.
[[noreturn]] void exit_while_busy(std::chrono::milliseconds delay) {
  std::atomic<int> started{0};
  for (int t = 0; t < 4; ++t)
    std::thread([t, &started] {
      const test::ByteVector key = test::random_bytes(16);
      const test::ByteVector iv = test::random_bytes(16);
      const test::ByteVector data = test::random_bytes(256 + 64 * t);
      started.fetch_add(1);
      for (;;) {
        // New sessions each round: construction consults the registry too.
        DigestSession digest("sha256");
        (void)digest.digest(data);
        CipherSession cipher("aes-128-cbc", key);
        (void)cipher.encrypt(iv, data);
      }
    }).detach();
  while (started.load() < 4) std::this_thread::yield();
  std::this_thread::sleep_for(delay);
  std::exit(0);
}

TEST(ProcessExit, ExitWithThreadsInsideTheLibraryEndsCleanly) {
  // OpenSSL's own exit handler (OPENSSL_cleanup) frees libcrypto under
  // threads that still use it; that is libcrypto's contract with the
  // program, not the library's, so it is left out here.
  ASSERT_EQ(OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr), 1);
  const int rounds = test::kUnderThreadSanitizer ? 4 : 12;
  for (int round = 0; round < rounds; ++round) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) exit_while_busy(std::chrono::milliseconds(5 + (round * 37) % 120));
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "round " << round << ": "
        << (WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                : "exit status " + std::to_string(WEXITSTATUS(status)));
  }
}

}  // namespace
}  // namespace cryptoaccel
