// The server-wide bounds of `cryptoaccel devcrypto` (issue 15, item 6):
// sessions over every open file are capped, the cap answers ENOMEM (what
// cryptodev-linux answers when it cannot allocate a session), the server
// serves on at the cap, and the memory of many sessions goes back to the
// system when their files close. Driven through handle_ioctl as the kernel
// would (devcrypto_kernel_sim.hpp).
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <memory>
#include <vector>

#include "abi/cryptodev.hpp"
#include "devcrypto/protocol.hpp"
#include "devcrypto_kernel_sim.hpp"
#include "test_util.hpp"

namespace cryptoaccel::test {
namespace {

using namespace cryptodev;

const ByteVector kKey = hex("2b7e151628aed2a6abf7158809cf4f3c");

class DevcryptoQuota : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    framework_ = std::make_unique<Framework>(FrameworkOptions{.excluded_families = {"cryptodev"}});
  }
  static void TearDownTestSuite() { framework_.reset(); }

  // Returns 0 and sets `ses`, or the negative errno.
  int open_session(devcrypto::Client& client, std::uint32_t& ses) {
    SessionOp op{.cipher = kAesCbc, .keylen = 16};
    op.key = reinterpret_cast<std::uintptr_t>(kKey.data());
    const int rc = simulate_ioctl(service_, client, kCiocGSession, &op).result;
    ses = op.ses;
    return rc;
  }
  // One CBC request of 64 bytes: the session's driver state exists after it.
  int encrypt(devcrypto::Client& client, std::uint32_t ses) {
    ByteVector data(64, 7), iv(16, 1);
    CryptOp op{.ses = ses, .op = kEncrypt, .len = 64};
    op.src = op.dst = reinterpret_cast<std::uintptr_t>(data.data());
    op.iv = reinterpret_cast<std::uintptr_t>(iv.data());
    return simulate_ioctl(service_, client, kCiocCrypt, &op).result;
  }

  static std::unique_ptr<Framework> framework_;
  devcrypto::Service service_{*framework_, {.driver = "soft", .max_sessions = 64}};
};

std::unique_ptr<Framework> DevcryptoQuota::framework_;

TEST_F(DevcryptoQuota, SessionsOverAllFilesAreCappedWithEnomem) {
  devcrypto::ServerQuota quota({.open_files = 8, .sessions = 100, .user_share = 1});
  std::vector<std::unique_ptr<devcrypto::Client>> clients;
  int made = 0, rc = 0;
  std::uint32_t ses = 0;
  // 64 on the first file (then its own bound, ENOSPC), 36 on the second.
  for (int file = 0; file < 3 && rc != -ENOMEM; ++file) {
    clients.push_back(std::make_unique<devcrypto::Client>(quota, 1000 * (file + 1)));
    while ((rc = open_session(*clients.back(), ses)) == 0) ++made;
    if (file == 0) {
      EXPECT_EQ(rc, -ENOSPC) << "the file's own bound comes first";
    }
  }
  EXPECT_EQ(rc, -ENOMEM) << "the server's bound";
  EXPECT_EQ(made, 100);
  EXPECT_EQ(quota.sessions(), 100u);
  EXPECT_EQ(clients.size(), 2u);

  // At the cap the server serves on: the sessions it holds work, and a new
  // file gets ENOMEM for a session, not a crash or a hang.
  std::uint32_t first = 1001;
  EXPECT_EQ(encrypt(*clients[0], first), 0);
  devcrypto::Client late(quota, 9000);
  EXPECT_EQ(open_session(late, ses), -ENOMEM);

  // A freed session makes room, for anyone.
  EXPECT_EQ(simulate_ioctl(service_, *clients[0], kCiocFSession, &first).result, 0);
  EXPECT_EQ(quota.sessions(), 99u);
  ASSERT_EQ(open_session(late, ses), 0);
  EXPECT_EQ(encrypt(late, ses), 0);
  // A closed file returns every session it held.
  clients.clear();
  EXPECT_EQ(quota.sessions(), 1u);
  EXPECT_EQ(open_session(late, ses), 0);
}

TEST_F(DevcryptoQuota, OpenFilesAreCapped) {
  devcrypto::ServerQuota quota({.open_files = 2, .sessions = 10, .user_share = 1});
  EXPECT_TRUE(quota.take_file(1000));
  EXPECT_TRUE(quota.take_file(2000));
  EXPECT_FALSE(quota.take_file(3000)) << "the third file is refused";
  EXPECT_EQ(quota.files(), 2u);
  quota.return_file(1000);
  EXPECT_TRUE(quota.take_file(3000));
}

TEST_F(DevcryptoQuota, OneUserHoldsAShareAndLeavesTheOthersRoom) {
  // A quarter of each bound per user: 4 files, 25 sessions, 1 KiB of output.
  devcrypto::ServerQuota quota({.open_files = 16, .sessions = 100, .async_bytes = 4096});
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(quota.take_file(65534));
  EXPECT_FALSE(quota.take_file(65534)) << "the user's share of open files";
  EXPECT_TRUE(quota.take_file(1000)) << "another user opens the device";
  EXPECT_TRUE(quota.take_async_bytes(65534, 1024));
  EXPECT_FALSE(quota.take_async_bytes(65534, 1)) << "the user's share of unfetched output";
  EXPECT_TRUE(quota.take_async_bytes(1000, 1024));
  quota.return_async_bytes(65534, 1024);
  EXPECT_TRUE(quota.take_async_bytes(65534, 1)) << "returned output makes room again";

  devcrypto::Client nobody_a(quota, 1000, 65534), nobody_b(quota, 2000, 65534);
  devcrypto::Client other(quota, 3000, 1000);
  int made = 0, rc = 0;
  std::uint32_t ses = 0;
  while ((rc = open_session(nobody_a, ses)) == 0) ++made;
  EXPECT_EQ(rc, -ENOMEM);
  EXPECT_EQ(made, 25) << "the user's share of sessions, over all their files";
  EXPECT_EQ(open_session(nobody_b, ses), -ENOMEM) << "a second file of the same user";
  ASSERT_EQ(open_session(other, ses), 0) << "another user makes sessions";
  EXPECT_EQ(encrypt(other, ses), 0);
  EXPECT_EQ(quota.sessions(), 26u);
}

TEST_F(DevcryptoQuota, AFailedSessionTakesNothingFromTheQuota) {
  devcrypto::ServerQuota quota({.open_files = 1, .sessions = 1, .user_share = 1});
  devcrypto::Client client(quota, 1);
  SessionOp bad{.cipher = kAesCbc, .keylen = 17};
  const ByteVector key17(17, 1);
  bad.key = reinterpret_cast<std::uintptr_t>(key17.data());
  EXPECT_EQ(simulate_ioctl(service_, client, kCiocGSession, &bad).result, -EINVAL);
  EXPECT_EQ(quota.sessions(), 0u);
  std::uint32_t ses = 0;
  EXPECT_EQ(open_session(client, ses), 0);
  EXPECT_EQ(open_session(client, ses), -ENOMEM);
}

// Resident set of this process, in bytes.
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

TEST_F(DevcryptoQuota, MemoryOfClosedFilesGoesBackToTheSystem) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizer's allocator keeps freed memory in quarantine";
#endif
  // The figure: 40 files of 64 sessions, each used once.
  devcrypto::ServerQuota quota({.open_files = 64, .sessions = 4096, .user_share = 1});
  ::malloc_trim(0);  // start from a heap with nothing to give back
  const std::size_t before = resident_bytes();
  {
    std::vector<std::unique_ptr<devcrypto::Client>> clients;
    for (int file = 0; file < 40; ++file) {
      clients.push_back(std::make_unique<devcrypto::Client>(quota, 100000 * (file + 1)));
      for (int i = 0; i < 64; ++i) {
        std::uint32_t ses = 0;
        ASSERT_EQ(open_session(*clients.back(), ses), 0);
        ASSERT_EQ(encrypt(*clients.back(), ses), 0);
      }
    }
    EXPECT_EQ(quota.sessions(), 2560u);
    const std::size_t peak = resident_bytes();
    ASSERT_GT(peak, before + 2 * 1024 * 1024) << "2,560 sessions should take megabytes";
    clients.clear();
    const std::size_t after = resident_bytes();
    std::printf("RSS: %zu KiB before, %zu KiB with 2,560 sessions, %zu KiB after closing\n",
                before / 1024, peak / 1024, after / 1024);
    EXPECT_LT(after - std::min(after, before), (peak - before) / 4)
        << "at most a quarter of the sessions' memory may stay with the process";
  }
  EXPECT_EQ(quota.sessions(), 0u);
}

}  // namespace
}  // namespace cryptoaccel::test
