// The copiers that reach a client's memory for requests above a round
// (memory_copiers.hpp) and the threads that serve those requests
// (deferred_requests.hpp). A page that never arrives is made with
// userfaultfd: a registered page nobody resolves holds whoever touches it,
// as a page of a FUSE file whose daemon never answers does (the guest's
// vm.devcrypto.hardening does that with a real FUSE mount).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "devcrypto/memory_copiers.hpp"
#include "devcrypto/deferred_requests.hpp"
#include "test_util.hpp"

namespace cryptoaccel::test {
namespace {

using namespace std::chrono_literals;
using devcrypto::ClientIov;
using devcrypto::MemoryCopiers;
using devcrypto::MemoryDirection;
using devcrypto::DeferredRequests;
using Clock = std::chrono::steady_clock;

pid_t own_tid() {
  return static_cast<pid_t>(syscall(SYS_gettid));
}

// Pages registered with userfaultfd that nobody resolves: a copy from them
// waits until release() or the copier is killed.
class StalledPages {
 public:
  explicit StalledPages(std::size_t pages) : size_(pages * sysconf(_SC_PAGESIZE)) {
    fd_ = static_cast<int>(syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK));
    if (fd_ < 0) return;
    uffdio_api api{.api = UFFD_API, .features = 0, .ioctls = 0};
    void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uffdio_register reg{};
    reg.range = {.start = address(p), .len = size_};
    reg.mode = UFFDIO_REGISTER_MODE_MISSING;
    if (p == MAP_FAILED || ioctl(fd_, UFFDIO_API, &api) != 0 ||
        ioctl(fd_, UFFDIO_REGISTER, &reg) != 0) {
      close(fd_);
      fd_ = -1;
      return;
    }
    base_ = static_cast<std::uint8_t*>(p);
  }
  ~StalledPages() {
    release();
    if (base_ != nullptr) munmap(base_, size_);
  }
  bool usable() const { return fd_ >= 0; }
  std::uint8_t* data() const { return base_; }
  std::size_t size() const { return size_; }
  // Whoever waits in these pages goes on (they read as zeros).
  void release() {
    if (fd_ < 0) return;
    uffdio_range range{.start = address(base_), .len = size_};
    ioctl(fd_, UFFDIO_UNREGISTER, &range);
    close(fd_);
    fd_ = -1;
  }

 private:
  std::size_t size_;
  int fd_ = -1;
  std::uint8_t* base_ = nullptr;
};

TEST(DevcryptoCopiers, ReadAndWriteTheCallersMemory) {
  MemoryCopiers copiers(2s);
  const ByteVector source = random_bytes(300 * 1024);
  ByteVector read(source.size());
  const std::vector<ClientIov> from{{address(source.data()), 1000},
                                    {address(source.data() + 1000), source.size() - 1000}};
  ASSERT_EQ(copiers.transfer(own_tid(), 0, from, read.data(), read.size(), MemoryDirection::read),
            0);
  EXPECT_EQ(read, source);
  ByteVector target(source.size());
  const std::vector<ClientIov> to{{address(target.data()), target.size()}};
  for (int i = 0; i < 3; ++i) {  // the same copier again, from the idle ones
    ASSERT_EQ(copiers.transfer(own_tid(), 0, to, const_cast<std::uint8_t*>(source.data()),
                               source.size(), MemoryDirection::write),
              0);
  }
  EXPECT_EQ(target, source);
}

TEST(DevcryptoCopiers, RefusalsAndFaultsAreTheKernelsCopys) {
  MemoryCopiers copiers(2s);
  std::uint8_t byte = 0;
  const std::vector<ClientIov> one{{address(&byte), 1}};
  EXPECT_EQ(copiers.transfer(own_tid(), 0, {}, nullptr, 0, MemoryDirection::read), 0);
  EXPECT_EQ(copiers.transfer(own_tid(), 0, one, &byte, 2, MemoryDirection::read), EINVAL)
      << "sizes that do not add up";
  EXPECT_EQ(copiers.transfer(0, 0, one, &byte, 1, MemoryDirection::read), EMSGSIZE)
      << "a caller not visible from our pid namespace";
  const std::vector<ClientIov> many(devcrypto::kMaxMemoryPieces + 1, {address(&byte), 0});
  EXPECT_EQ(copiers.transfer(own_tid(), 0, many, &byte, 0, MemoryDirection::read), EINVAL);
  const long page = sysconf(_SC_PAGESIZE);
  auto* two = static_cast<std::uint8_t*>(
      mmap(nullptr, 2 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(two, MAP_FAILED);
  ByteVector bytes(2 * page);
  const std::vector<ClientIov> read_only{{address(two), bytes.size()}};
  EXPECT_EQ(
      copiers.transfer(own_tid(), 0, read_only, bytes.data(), bytes.size(), MemoryDirection::write),
      EFAULT)
      << "a read-only destination";
  munmap(two + page, page);
  EXPECT_EQ(
      copiers.transfer(own_tid(), 0, read_only, bytes.data(), bytes.size(), MemoryDirection::read),
      EFAULT)
      << "a half-unmapped source";
  munmap(two, page);
}

TEST(DevcryptoCopiers, AStalledPageCostsTheDeadlineAndTheCopierNotTheServer) {
  StalledPages stalled(4);
  if (!stalled.usable()) GTEST_SKIP() << "no userfaultfd here: " << std::strerror(errno);
  // Long enough for a fresh copier's first answer under a sanitizer on a
  // loaded machine.
  MemoryCopiers copiers(1s);
  ByteVector bytes(stalled.size());
  const std::vector<ClientIov> pieces{{address(stalled.data()), stalled.size()}};
  const auto start = Clock::now();
  EXPECT_EQ(copiers.transfer(own_tid(), 1000, pieces, bytes.data(), bytes.size(),
                             MemoryDirection::read),
            ETIMEDOUT);
  const auto waited = Clock::now() - start;
  EXPECT_GE(waited, 1s);
  EXPECT_LT(waited, 3s) << "the deadline, not the page, ends the wait";
  // The next transfer gets another copier and works.
  const ByteVector source = random_bytes(4096);
  ByteVector read(source.size());
  EXPECT_EQ(copiers.transfer(own_tid(), 1000, std::vector<ClientIov>{{address(source.data()), 4096}},
                             read.data(), read.size(), MemoryDirection::read),
            0);
  EXPECT_EQ(read, source);
  // The copier given up was killed: userfaultfd lets a killed waiter go.
  const auto until = Clock::now() + 5s;
  while (copiers.stuck(1000) != 0 && Clock::now() < until) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(copiers.stuck(1000), 0U);
}

TEST(DevcryptoCopiers, StopEndsAWaitInAStalledPageAtOnce) {
  StalledPages stalled(1);
  if (!stalled.usable()) GTEST_SKIP() << "no userfaultfd here: " << std::strerror(errno);
  MemoryCopiers copiers(60s);
  ByteVector bytes(stalled.size());
  const std::vector<ClientIov> pieces{{address(stalled.data()), stalled.size()}};
  auto waiting = std::async(std::launch::async, [&] {
    return copiers.transfer(own_tid(), 0, pieces, bytes.data(), bytes.size(),
                            MemoryDirection::read);
  });
  std::this_thread::sleep_for(200ms);
  const auto start = Clock::now();
  copiers.stop();
  ASSERT_EQ(waiting.wait_for(1s), std::future_status::ready) << "stop() ends the wait";
  EXPECT_EQ(waiting.get(), ECANCELED);
  EXPECT_LT(Clock::now() - start, 1s);
  std::uint8_t byte = 0;
  EXPECT_EQ(copiers.transfer(own_tid(), 0, std::vector<ClientIov>{{address(&byte), 1}}, &byte, 1,
                             MemoryDirection::read),
            ECANCELED)
      << "and every later transfer";
}

// A latch the jobs of the tests below wait on.
class Gate {
 public:
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    wake_.notify_all();
  }
  void pass() {
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [this] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool open_ = false;
};

DeferredRequests::Job job(uid_t user, std::function<void()> run, std::atomic<int>* cancelled) {
  DeferredRequests::Job j;
  j.user = user;
  j.run = std::move(run);
  j.cancel = [cancelled] { ++*cancelled; };
  return j;
}

TEST(DevcryptoDeferredRequests, AUserAtTheirSlotsWaitsWhileOthersRun) {
  MemoryCopiers copiers(2s);
  DeferredRequests requests(copiers, 4, 2);
  Gate gate;
  std::atomic<int> started{0}, others{0}, cancelled{0};
  for (int i = 0; i < 3; ++i) {  // user 1000: two run and hold, the third waits
    auto j = job(1000, [&] { ++started; gate.pass(); }, &cancelled);
    ASSERT_TRUE(requests.submit(j));
  }
  auto other = job(2000, [&] { ++others; }, &cancelled);
  ASSERT_TRUE(requests.submit(other));
  const auto until = Clock::now() + 5s;
  while ((started < 2 || others < 1) && Clock::now() < until) std::this_thread::sleep_for(5ms);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(started, 2) << "two slots for user 1000";
  EXPECT_EQ(others, 1) << "another user's request runs beside them";
  gate.open();
  while (started < 3 && Clock::now() < until) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(started, 3) << "the third runs once a slot is free";
  EXPECT_EQ(cancelled, 0);
}

TEST(DevcryptoDeferredRequests, WaitingJobsAreBoundedPerUserAndCancelledOnStop) {
  MemoryCopiers copiers(2s);
  auto requests = std::make_unique<DeferredRequests>(copiers, 2, 1);
  Gate gate;
  std::atomic<int> ran{0}, cancelled{0};
  auto holder = job(7, [&] { gate.pass(); ++ran; }, &cancelled);
  ASSERT_TRUE(requests->submit(holder));
  std::size_t accepted = 0;
  for (std::size_t i = 0; i < devcrypto::kMaxWaitingPerUser + 5; ++i) {
    auto j = job(7, [&] { ++ran; }, &cancelled);
    if (requests->submit(j)) ++accepted;
  }
  EXPECT_GE(accepted, devcrypto::kMaxWaitingPerUser - 1);
  EXPECT_LE(accepted, devcrypto::kMaxWaitingPerUser);
  auto other = job(8, [&] { ++ran; }, &cancelled);
  EXPECT_TRUE(requests->submit(other)) << "another user's queue is its own";
  std::thread opener([&] {
    std::this_thread::sleep_for(100ms);
    gate.open();
  });
  requests->stop();
  opener.join();
  EXPECT_EQ(static_cast<std::size_t>(ran + cancelled), accepted + 2)
      << "every job either ran or was cancelled";
  EXPECT_GE(cancelled, 1);
  auto late = job(7, [] {}, &cancelled);
  EXPECT_FALSE(requests->submit(late)) << "nothing is queued after stop()";
}

}  // namespace
}  // namespace cryptoaccel::test
