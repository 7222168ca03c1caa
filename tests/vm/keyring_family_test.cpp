// A key kept in the kernel keyring (RsaKey::keep_in_kernel_keyring: what
// the provider's cryptoaccel-keyring: store and key_storage = keyring do)
// and the processes around it, in the guest:
//   - the children the loading process forks use it (pre-forking servers
//     load keys in the master and sign in the workers), and a child's copy
//     going does not take it from the others;
//   - a process outside that family, of the same user or of another, can
//     neither use it, read it, see it, link it or anything above it into a
//     keyring of its own, nor revoke it;
//   - it goes when the last process of the family does;
//   - every thread of the process that kept it uses it, and keeps more,
//     whichever thread kept the first and whenever the threads started.
// Each master runs in a forked child, so that this process's own keyrings
// stay as they were.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <grp.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/best_kernel_rsa.hpp"
#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel {
namespace {

using ByteVector = std::vector<std::uint8_t>;

const std::string kDriver = "keyring:" + test_support::best_kernel_rsa();
constexpr uid_t kNobody = 65534;

long keyctl(int op, unsigned long a2, unsigned long a3 = 0, unsigned long a4 = 0,
            unsigned long a5 = 0) {
  return syscall(__NR_keyctl, op, a2, a3, a4, a5);
}
template <typename T>
unsigned long arg(T* p) {
  return reinterpret_cast<unsigned long>(p);
}
unsigned long arg(long serial) {
  return static_cast<unsigned long>(serial);
}

const RsaKey& generated() {
  static const RsaKey k = RsaKey::generate(2048);
  return k;
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0 && errno != EINTR) return;
    if (n > 0) done += static_cast<std::size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string text;
  char buffer[512];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

// Runs `body` in a forked child and returns what it returned (empty: it
// passed), or why the child died.
std::string in_child(const std::function<std::string()>& body) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return std::string("pipe: ") + std::strerror(errno);
  const pid_t pid = fork();
  if (pid < 0) return std::string("fork: ") + std::strerror(errno);
  if (pid == 0) {
    close(fds[0]);
    std::string answer;
    try {
      answer = body();
    } catch (const std::exception& e) {
      answer = std::string("threw: ") + e.what();
    }
    write_all(fds[1], answer);
    _exit(answer.empty() ? 0 : 1);
  }
  close(fds[1]);
  std::string answer = read_all(fds[0]);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status)) answer += " (the child was killed by signal " +
                                    std::to_string(WTERMSIG(status)) + ")";
  else if (WEXITSTATUS(status) != 0 && answer.empty())
    answer = "the child exited with " + std::to_string(WEXITSTATUS(status));
  return answer;
}

// Empty when `key` signs on the keyring instance and the signature verifies.
std::string signs(const RsaKey& key, std::uint8_t seed) {
  try {
    RsaSession session(key, {.driver = kDriver});
    const ByteVector digest(32, seed);
    const ByteVector signature = session.sign({}, digest);
    if (session.last_driver() != kDriver) return "signed on " + std::string(session.last_driver());
    if (!RsaSession(key.public_key(), {.driver = "soft"}).verify({}, digest, signature))
      return "the signature does not verify";
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

std::string description_of(long key) {
  char text[256] = {};
  const long n = keyctl(KEYCTL_DESCRIBE, arg(key), arg(text), sizeof text - 1);
  return n > 0 ? std::string(text) : std::string();
}

// The serials around a key the calling process keeps in the kernel.
struct Family {
  long key = -1;           // the newest ":stored:" key
  long ring = -1;          // the "cryptoaccel:shared" keyring
  long session = -1;       // the session keyring it is in
  long process_ring = -1;  // the "cryptoaccel" keyring under @p
  std::string description;
};

Family family_of_stored_key() {
  Family f;
  f.session = keyctl(KEYCTL_GET_KEYRING_ID, arg(long{KEY_SPEC_SESSION_KEYRING}), 0);
  f.ring = keyctl(KEYCTL_SEARCH, arg(long{KEY_SPEC_SESSION_KEYRING}), arg("keyring"),
                  arg("cryptoaccel:shared"), 0);
  f.process_ring = keyctl(KEYCTL_SEARCH, arg(long{KEY_SPEC_PROCESS_KEYRING}), arg("keyring"),
                          arg("cryptoaccel"), 0);
  std::vector<std::int32_t> serials(256);
  const long n = keyctl(KEYCTL_READ, arg(f.ring), arg(serials.data()),
                        serials.size() * sizeof(std::int32_t));
  for (long i = 0; n > 0 && i < n / 4; ++i) {
    const std::string d = description_of(serials[static_cast<std::size_t>(i)]);
    const std::size_t at = d.rfind(';');
    if (d.find(":stored:") == std::string::npos || at == std::string::npos) continue;
    f.key = serials[static_cast<std::size_t>(i)];
    f.description = d.substr(at + 1);
  }
  return f;
}

std::string errno_text() {
  return std::strerror(errno);
}

// Everything a process outside the family tries on the family's key and
// keyrings; each must fail. The failures found, or empty.
std::string attempts(const Family& f, const RsaKey& key) {
  std::string found;
  auto must_fail = [&](const std::string& what, long result) {
    if (result >= 0) found += what + " succeeded; ";
  };
  std::vector<std::uint8_t> in(256, 1), out(512);
  keyctl_pkey_query query{};
  must_fail("KEYCTL_PKEY_QUERY", keyctl(KEYCTL_PKEY_QUERY, arg(f.key), 0, arg("enc=raw"),
                                        arg(&query)));
  keyctl_pkey_params raw{};
  raw.key_id = static_cast<std::int32_t>(f.key);
  raw.in_len = 256;
  raw.out_len = 256;
  must_fail("KEYCTL_PKEY_DECRYPT enc=raw (m^d)",
            keyctl(KEYCTL_PKEY_DECRYPT, arg(&raw), arg("enc=raw"), arg(in.data()),
                   arg(out.data())));
  keyctl_pkey_params pkcs1 = raw;
  pkcs1.in_len = 32;
  must_fail("KEYCTL_PKEY_SIGN enc=pkcs1 hash=sha256",
            keyctl(KEYCTL_PKEY_SIGN, arg(&pkcs1), arg("enc=pkcs1 hash=sha256"), arg(in.data()),
                   arg(out.data())));
  must_fail("KEYCTL_READ", keyctl(KEYCTL_READ, arg(f.key), arg(out.data()), out.size()));
  must_fail("KEYCTL_DESCRIBE", keyctl(KEYCTL_DESCRIBE, arg(f.key), arg(out.data()), out.size()));
  must_fail("KEYCTL_SEARCH by its description",
            keyctl(KEYCTL_SEARCH, arg(long{KEY_SPEC_SESSION_KEYRING}), arg("asymmetric"),
                   arg(f.description.c_str()), 0));
  must_fail("KEYCTL_LINK into its own session keyring",
            keyctl(KEYCTL_LINK, arg(f.key), arg(long{KEY_SPEC_SESSION_KEYRING})));
  const struct {
    const char* name;
    long serial;
  } rings[] = {{"the session keyring", f.session},
               {"the cryptoaccel:shared keyring", f.ring},
               {"the process's cryptoaccel keyring", f.process_ring}};
  for (const auto& ring : rings) {
    must_fail(std::string("KEYCTL_LINK of ") + ring.name,
              keyctl(KEYCTL_LINK, arg(ring.serial), arg(long{KEY_SPEC_SESSION_KEYRING})));
    must_fail(std::string("KEYCTL_READ of ") + ring.name,
              keyctl(KEYCTL_READ, arg(ring.serial), arg(out.data()), out.size()));
    must_fail(std::string("KEYCTL_DESCRIBE of ") + ring.name,
              keyctl(KEYCTL_DESCRIBE, arg(ring.serial), arg(out.data()), out.size()));
    must_fail(std::string("KEYCTL_SETPERM of ") + ring.name,
              keyctl(KEYCTL_SETPERM, arg(ring.serial), 0x3f3f3f3f));
  }
  // After every link tried, the key is still out of reach.
  must_fail("KEYCTL_PKEY_QUERY after the links tried",
            keyctl(KEYCTL_PKEY_QUERY, arg(f.key), 0, arg("enc=raw"), arg(&query)));
  must_fail("KEYCTL_SETPERM", keyctl(KEYCTL_SETPERM, arg(f.key), 0x3f3f3f3f));
  must_fail("KEYCTL_CHOWN", keyctl(KEYCTL_CHOWN, arg(f.key), getuid(), static_cast<gid_t>(-1)));
  must_fail("KEYCTL_SET_TIMEOUT", keyctl(KEYCTL_SET_TIMEOUT, arg(f.key), 1));
  must_fail("KEYCTL_INVALIDATE", keyctl(KEYCTL_INVALIDATE, arg(f.key)));
  must_fail("KEYCTL_REVOKE", keyctl(KEYCTL_REVOKE, arg(f.key)));
  // Not even listed.
  std::ifstream proc_keys("/proc/keys");
  std::string line;
  while (std::getline(proc_keys, line))
    for (const auto& ring : rings)
      for (long serial : {ring.serial, f.key}) {
        char hex[16];
        std::snprintf(hex, sizeof hex, "%08lx ", serial);
        if (line.rfind(hex, 0) == 0) found += "/proc/keys lists " + line + "; ";
      }
  // Nor through the library, with the key object itself.
  if (signs(key, 3).empty()) found += "RsaSession signed with the key; ";
  return found;
}

// Keys of `uid` in the kernel, from /proc/key-users; -1 if none listed.
long keys_of(uid_t uid) {
  std::ifstream users("/proc/key-users");
  std::string line;
  while (std::getline(users, line)) {
    std::istringstream fields(line);
    std::string who, usage, counts;
    fields >> who >> usage >> counts;
    if (who == std::to_string(uid) + ":") return std::stol(counts.substr(0, counts.find('/')));
  }
  return -1;
}

TEST(KeyringFamily, ForkedWorkersSignWithTheMastersKeyAndLeaveItToTheMaster) {
  ASSERT_NE(kDriver, "keyring:") << "/proc/crypto lists no rsa akcipher that passed its self-test";
  const std::string answer = in_child([] {
    std::optional<RsaKey> key(generated());
    key->keep_in_kernel_keyring();
    if (std::string e = signs(*key, 1); !e.empty()) return "the master: " + e;
    std::string failures;
    for (int w = 0; w < 3; ++w) {
      const std::string worker = in_child([&] {
        std::string e = signs(*key, static_cast<std::uint8_t>(10 + w));
        key.reset();  // the worker's copy goes (its exit): the master's stays
        return e;
      });
      if (!worker.empty()) failures += "worker " + std::to_string(w) + ": " + worker + "; ";
    }
    if (std::string e = signs(*key, 2); !e.empty()) failures += "the master afterwards: " + e;
    // A worker that drops to another user, as nginx's and Apache's do, still
    // holds the session keyring, so still possesses the key.
    const std::string dropped = in_child([&] {
      if (setgroups(0, nullptr) != 0 || setresgid(kNobody, kNobody, kNobody) != 0 ||
          setresuid(kNobody, kNobody, kNobody) != 0)
        return "cannot become nobody: " + errno_text();
      return signs(*key, 20);
    });
    if (!dropped.empty()) failures += "a worker as nobody: " + dropped;
    return failures;
  });
  EXPECT_EQ(answer, "");
}

// `outsider`: the uid the outsider takes (its own: the same user).
void an_outsider_cannot_touch_the_key(uid_t outsider) {
  const std::string answer = in_child([outsider] {
    RsaKey key = generated();
    key.keep_in_kernel_keyring();
    const Family f = family_of_stored_key();
    if (f.key < 0 || f.ring < 0 || f.session < 0 || f.process_ring < 0)
      return "the master cannot find its key and keyrings: key " + std::to_string(f.key) +
             ", cryptoaccel:shared " + std::to_string(f.ring) + ", session " +
             std::to_string(f.session) + ", process's cryptoaccel " +
             std::to_string(f.process_ring);
    if (std::string e = signs(key, 1); !e.empty()) return "the master: " + e;
    // Forked, then out of the family: a session keyring of its own and a
    // process keyring of its own (a fork's), as a process started anywhere
    // else by this user or another has.
    std::string found = in_child([&] {
      if (outsider != getuid() &&
          (setgroups(0, nullptr) != 0 || setresgid(kNobody, kNobody, kNobody) != 0 ||
           setresuid(outsider, outsider, outsider) != 0))
        return "cannot change user: " + errno_text();
      if (keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0) < 0)
        return "cannot join a session keyring of its own: " + errno_text();
      return attempts(f, key);
    });
    if (std::string e = signs(key, 2); !e.empty()) found += "the master afterwards: " + e;
    return found;
  });
  EXPECT_EQ(answer, "");
}

TEST(KeyringFamily, AProcessOfTheSameUserOutsideTheFamilyCannotTouchTheKey) {
  an_outsider_cannot_touch_the_key(getuid());
}

TEST(KeyringFamily, AProcessOfAnotherUserCannotTouchTheKey) {
  an_outsider_cannot_touch_the_key(kNobody);
}

// The master dies first (as with SIGKILL: nothing of it runs), its worker
// still signs; when the worker goes too, every key and keyring of theirs
// goes (the kernel's count of this user's keys is back where it was).
TEST(KeyringFamily, TheKeyGoesWithTheLastProcessOfItsFamily) {
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);  // the orphaned worker comes to us
  generated();
  const long before = keys_of(getuid());
  int go[2], result[2];
  ASSERT_EQ(pipe2(go, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(result, O_CLOEXEC), 0);
  const pid_t master = fork();
  ASSERT_GE(master, 0);
  if (master == 0) {
    RsaKey key = generated();
    key.keep_in_kernel_keyring();
    std::string e = signs(key, 1);
    if (e.empty() && fork() == 0) {  // the worker
      char byte;
      while (read(go[0], &byte, 1) < 0 && errno == EINTR) {
      }
      write_all(result[1], "worker: " + signs(key, 2));
      _exit(0);
    }
    if (!e.empty()) write_all(result[1], "the master: " + e);
    _exit(0);  // no destructor runs: the key is not revoked
  }
  close(go[0]);
  close(result[1]);
  int status = 0;
  ASSERT_EQ(waitpid(master, &status, 0), master);
  const long with_orphan = keys_of(getuid());
  EXPECT_GT(with_orphan, before) << "the key went with the master, before its worker";
  write_all(go[1], "g");
  close(go[1]);
  EXPECT_EQ(read_all(result[0]), "worker: ");
  close(result[0]);
  while (waitpid(-1, &status, 0) > 0) {
  }
  long after = keys_of(getuid());
  for (int i = 0; i < 100 && after > before; ++i) {  // the kernel's collector runs on a worker
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    after = keys_of(getuid());
  }
  EXPECT_EQ(after, before) << with_orphan - before
                           << " keys and keyrings while the worker lived; not all went with it";
  prctl(PR_SET_CHILD_SUBREAPER, 0);
}

// A thread that runs `body` when let go (a thread pool's, started before
// anything was kept), and is let go and joined whatever happens meanwhile.
class WaitingThread {
 public:
  explicit WaitingThread(std::function<void()> body)
      : thread_([this, body = std::move(body)] {
          std::unique_lock lock(mutex_);
          go_.wait(lock, [this] { return let_go_; });
          lock.unlock();
          body();
        }) {}
  ~WaitingThread() { join(); }
  pthread_t handle() { return thread_.native_handle(); }
  void let_go() {
    {
      const std::lock_guard lock(mutex_);
      let_go_ = true;
    }
    go_.notify_all();
  }
  void join() {
    {
      const std::lock_guard lock(mutex_);
      let_go_ = true;
    }
    go_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable go_;
  bool let_go_ = false;
  std::thread thread_;
};

std::string kept(RsaKey& key) {
  try {
    key.keep_in_kernel_keyring();
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

// A thread pool (or the provider's async workers) started before the first
// key is kept: the process keyring made for it is not in its threads'
// credentials, yet they sign with it.
TEST(KeyringFamily, AThreadStartedBeforeTheFirstKeyIsKeptSignsWithIt) {
  ASSERT_NE(kDriver, "keyring:") << "/proc/crypto lists no rsa akcipher that passed its self-test";
  const std::string answer = in_child([] {
    RsaKey key = generated();
    std::string early;
    WaitingThread pool([&] { early = signs(key, 1); });
    if (std::string e = kept(key); !e.empty()) return "the main thread keeps the key: " + e;
    pool.join();
    std::string failures;
    if (!early.empty()) failures += "the thread started before: " + early + "; ";
    if (std::string e = signs(key, 2); !e.empty()) failures += "the main thread: " + e;
    return failures;
  });
  EXPECT_EQ(answer, "");
}

// The first key kept on a helper thread (a configuration loader), a second
// on the main thread, which was already running: both are kept, and each
// thread signs with both.
TEST(KeyringFamily, AKeyKeptOnAnotherThreadAfterTheFirstSignsOnEveryThread) {
  ASSERT_NE(kDriver, "keyring:") << "/proc/crypto lists no rsa akcipher that passed its self-test";
  const std::string answer = in_child([] {
    RsaKey first = generated(), second = generated();
    std::mutex mutex;
    std::condition_variable changed;
    enum { starting, first_kept, second_kept } stage = starting;
    std::string helper;
    std::thread loader([&] {
      helper = kept(first);
      if (helper.empty()) helper = signs(first, 1);
      std::unique_lock lock(mutex);
      stage = first_kept;
      changed.notify_all();
      changed.wait(lock, [&] { return stage == second_kept; });
      lock.unlock();
      if (std::string e = signs(second, 2); !e.empty()) helper += "with the second key: " + e;
      if (std::string e = signs(first, 3); !e.empty()) helper += "with the first key: " + e;
    });
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return stage == first_kept; });
    lock.unlock();
    std::string failures;
    if (std::string e = kept(second); !e.empty())
      failures += "the main thread keeps the second key: " + e + "; ";
    else {
      if (std::string s = signs(second, 4); !s.empty())
        failures += "the main thread with the second key: " + s + "; ";
      if (std::string s = signs(first, 5); !s.empty())
        failures += "the main thread with the first key: " + s + "; ";
    }
    lock.lock();
    stage = second_kept;
    changed.notify_all();
    lock.unlock();
    loader.join();
    if (!helper.empty()) failures += "the helper thread: " + helper;
    return failures;
  });
  EXPECT_EQ(answer, "");
}

// The process keyring made by the main thread (a key used in a session),
// the first key kept for good on a thread that was already running, whose
// new keyring cannot be linked under the process keyring: every thread
// signs with it, the main thread and one started later too.
TEST(KeyringFamily, AFirstKeyKeptOnAThreadThatMissesTheProcessKeyringSignsOnEveryThread) {
  ASSERT_NE(kDriver, "keyring:") << "/proc/crypto lists no rsa akcipher that passed its self-test";
  const std::string answer = in_child([] {
    RsaKey key = generated();
    std::string helper;
    WaitingThread loader([&] {
      helper = kept(key);
      if (helper.empty()) helper = signs(key, 1);
    });
    // A key loaded for a session makes the process keyring on this thread.
    if (std::string e = signs(generated(), 2); !e.empty()) return "a session's key: " + e;
    loader.join();
    if (!helper.empty()) return "the thread that kept the key: " + helper;
    std::string failures;
    if (std::string e = signs(key, 3); !e.empty()) failures += "the main thread: " + e + "; ";
    std::string later;
    std::thread([&] { later = signs(key, 4); }).join();
    if (!later.empty()) failures += "a thread started afterwards: " + later;
    return failures;
  });
  EXPECT_EQ(answer, "");
}

// A kept key let go on a thread that does not possess it (the last
// reference dropped by a pool's thread) is revoked all the same.
TEST(KeyringFamily, AKeyLetGoOnAThreadStartedBeforeItWasKeptIsRevoked) {
  ASSERT_NE(kDriver, "keyring:") << "/proc/crypto lists no rsa akcipher that passed its self-test";
  const std::string answer = in_child([] {
    std::optional<RsaKey> key(generated());
    WaitingThread pool([&] { key.reset(); });
    if (std::string e = kept(*key); !e.empty()) return "the main thread keeps the key: " + e;
    const Family f = family_of_stored_key();
    if (f.key < 0) return std::string("the main thread cannot find its key");
    pool.join();
    if (key) return std::string("the key was not let go");
    char text[256];
    if (keyctl(KEYCTL_DESCRIBE, arg(f.key), arg(text), sizeof text) >= 0)
      return "the key is still there: " + description_of(f.key);
    if (errno != EKEYREVOKED && errno != ENOKEY) return "describing the key: " + errno_text();
    return std::string();
  });
  EXPECT_EQ(answer, "");
}

// Hostile or merely unusual callers of the keyring calls a possessor runs
// for threads that lack the process keyring (src/drivers/keyring/
// possessor_thread.hpp).

// A pool thread cancelled (pthread_cancel, deferred) while its call waits
// for the possessor: the wait is a cancellation point inside noexcept
// frames, which aborted the process. The cancellation now waits for the
// call to end; the process and the other threads go on signing.
TEST(KeyringFamily, AThreadCancelledWhileItsCallWaitsOnThePossessorLeavesTheProcessRunning) {
  ASSERT_NE(kDriver, "keyring:") << "/proc/crypto lists no rsa akcipher that passed its self-test";
  (void)generated();
  for (int round = 0; round < 3; ++round) {
    const std::string answer = in_child([round] {
      RsaKey key = generated();
      std::atomic<int> failed{0};
      std::vector<std::unique_ptr<WaitingThread>> pool;
      for (int i = 0; i < 3; ++i)
        pool.push_back(std::make_unique<WaitingThread>([&] {
          for (int j = 0; j < 20; ++j)
            if (!signs(key, static_cast<std::uint8_t>(j)).empty()) ++failed;
        }));
      // The library first used here, after the pool started (the pool
      // lacks the process keyring).
      if (std::string e = signs(generated(), 0); !e.empty()) return "the main thread: " + e;
      if (std::string e = kept(key); !e.empty()) return "the main thread keeps the key: " + e;
      for (auto& thread : pool) thread->let_go();
      std::this_thread::sleep_for(std::chrono::milliseconds(100 + 150 * round));
      pthread_cancel(pool[0]->handle());
      for (auto& thread : pool) thread->join();
      if (failed.load() != 0) return std::to_string(failed.load()) + " signatures failed";
      return std::string();
    });
    EXPECT_EQ(answer, "") << "round " << round;
  }
}

// A seccomp filter on one thread (no TSYNC) that answers keyctl and
// add_key with EACCES: the thread's calls are refused, whether it started
// before the process keyring (it lacks it) or after; the possessor, which
// the filter does not cover, must not run them for it.
int refuse_keyctl_on_this_thread() {
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_keyctl, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_add_key, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
  };
  sock_fprog program{.len = sizeof filter / sizeof filter[0], .filter = filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return static_cast<int>(syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program));
}

TEST(KeyringFamily, AThreadsOwnSeccompRefusalStands) {
  ASSERT_NE(kDriver, "keyring:") << "/proc/crypto lists no rsa akcipher that passed its self-test";
  (void)generated();
  const std::string answer = in_child([] {
    RsaKey key = generated();
    std::string before, after;
    const auto sandboxed = [&key](std::string& out) {
      if (refuse_keyctl_on_this_thread() != 0) {
        out = "seccomp: " + errno_text();
        return;
      }
      if (signs(key, 1).empty()) out += "signed with the kept key; ";
      if (signs(generated(), 2).empty()) out += "signed with a session's key; ";
    };
    WaitingThread early([&] { sandboxed(before); });
    if (std::string e = signs(generated(), 0); !e.empty()) return "the main thread: " + e;
    if (std::string e = kept(key); !e.empty()) return "the main thread keeps the key: " + e;
    early.join();
    std::thread([&] { sandboxed(after); }).join();
    std::string failures;
    if (!before.empty()) failures += "a thread started before the key was kept: " + before;
    if (!after.empty()) failures += "a thread started after: " + after;
    if (std::string e = signs(key, 3); !e.empty()) failures += "the main thread: " + e;
    return failures;
  });
  EXPECT_EQ(answer, "");
}

// A thread that took other credentials for itself alone (a raw
// setresuid, as file servers impersonating their clients do) and lacks
// the process keyring: the possessor, with the process's credentials,
// must not act for it (the key would be root's, charged to root).
TEST(KeyringFamily, AThreadWithCredentialsOfItsOwnIsNotServedByThePossessor) {
  ASSERT_NE(kDriver, "keyring:") << "/proc/crypto lists no rsa akcipher that passed its self-test";
  (void)generated();
  const std::string answer = in_child([] {
    RsaKey key = generated();
    std::string impersonating;
    WaitingThread thread([&] {
      if (syscall(SYS_setresuid, kNobody, kNobody, kNobody) != 0) {
        impersonating = "setresuid: " + errno_text();
        return;
      }
      if (signs(key, 1).empty()) impersonating += "signed with the kept key; ";
      if (signs(generated(), 2).empty()) impersonating += "signed with a session's key; ";
    });
    if (std::string e = signs(generated(), 0); !e.empty()) return "the main thread: " + e;
    if (std::string e = kept(key); !e.empty()) return "the main thread keeps the key: " + e;
    thread.join();
    if (!impersonating.empty()) return "the thread running as nobody: " + impersonating;
    if (std::string e = signs(key, 3); !e.empty()) return "the main thread: " + e;
    return std::string();
  });
  EXPECT_EQ(answer, "");
}

// A process with one thread gets no possessor (no thread lacks its
// keyring): it stays single-threaded, as unshare(CLONE_NEWUSER) requires.
std::size_t threads_of_this_process() {
  std::size_t n = 0;
  if (DIR* tasks = opendir("/proc/self/task")) {
    while (const dirent* entry = readdir(tasks))
      if (entry->d_name[0] != '.') ++n;
    closedir(tasks);
  }
  return n;
}

TEST(KeyringFamily, ASingleThreadedProcessStaysSingleThreaded) {
  ASSERT_NE(kDriver, "keyring:") << "/proc/crypto lists no rsa akcipher that passed its self-test";
  (void)generated();
  const std::string answer = in_child([] {
    RsaKey key = generated();
    if (std::string e = signs(generated(), 1); !e.empty()) return "a session's key: " + e;
    if (std::string e = kept(key); !e.empty()) return "keeping a key: " + e;
    if (std::string e = signs(key, 2); !e.empty()) return "the kept key: " + e;
    if (const std::size_t n = threads_of_this_process(); n != 1)
      return std::to_string(n) + " threads after using the keyring";
    return std::string();
  });
  EXPECT_EQ(answer, "");
}

// Another copy of the library in the process (the provider carries its
// own) made the "cryptoaccel" keyring under @p first: played here by the
// test. This copy must take it as it is: a second keyring of that name
// displaced the first, and the kernel dropped it with the other copy's keys.
TEST(KeyringFamily, AnotherCopysKeyringIsTakenNotDisplaced) {
  ASSERT_NE(kDriver, "keyring:") << "/proc/crypto lists no rsa akcipher that passed its self-test";
  (void)generated();
  const std::string answer = in_child([] {
    const long theirs = syscall(__NR_add_key, "keyring", "cryptoaccel", nullptr, 0,
                                KEY_SPEC_PROCESS_KEYRING);
    if (theirs < 0) return "making the other copy's keyring: " + errno_text();
    const char payload[] = "the other copy's";
    const long their_key =
        syscall(__NR_add_key, "user", "other-copy", payload, sizeof payload, theirs);
    if (their_key < 0) return "a key in it: " + errno_text();
    if (std::string e = signs(generated(), 1); !e.empty()) return "this copy's session: " + e;
    std::string failures;
    const long found = keyctl(KEYCTL_SEARCH, arg(long{KEY_SPEC_PROCESS_KEYRING}), arg("keyring"),
                              arg("cryptoaccel"), 0);
    if (found != theirs)
      failures += "the process keyring's cryptoaccel is " + std::to_string(found) + ", not " +
                  std::to_string(theirs) + "; ";
    if (description_of(their_key).empty()) failures += "the other copy's key is gone; ";
    return failures;
  });
  EXPECT_EQ(answer, "");
}

// A worker that keeps a key of its own (a new session for its family)
// and then forks: its children sign with the master's key too. The
// master's session was linked into the worker's new one after the
// worker had stopped possessing it, which the kernel refused.
TEST(KeyringFamily, AWorkersChildrenSignWithTheMastersKeyAfterTheWorkerKeptItsOwn) {
  ASSERT_NE(kDriver, "keyring:") << "/proc/crypto lists no rsa akcipher that passed its self-test";
  (void)generated();
  const std::string answer = in_child([] {
    RsaKey masters = generated();
    if (std::string e = kept(masters); !e.empty()) return "the master keeps its key: " + e;
    return in_child([&masters] {
      RsaKey workers = generated();
      if (std::string e = kept(workers); !e.empty()) return "the worker keeps its key: " + e;
      std::string failures;
      if (std::string e = signs(masters, 1); !e.empty())
        failures += "the worker with the master's key: " + e + "; ";
      failures += in_child([&] {
        std::string e;
        if (std::string m = signs(masters, 2); !m.empty()) e += "the worker's child with the master's key: " + m + "; ";
        if (std::string w = signs(workers, 3); !w.empty()) e += "the worker's child with the worker's key: " + w;
        return e;
      });
      return failures;
    });
  });
  EXPECT_EQ(answer, "");
}

}  // namespace
}  // namespace cryptoaccel
