#include "kernel_keys.hpp"

#include <linux/keyctl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>

#include "possessor_thread.hpp"

namespace cryptoaccel::keyring {
namespace {

KeyResult result_of(long r) noexcept {
  return r < 0 ? KeyResult{.value = 0, .error = errno} : KeyResult{.value = r, .error = 0};
}

long keyctl(int op, unsigned long a2, unsigned long a3 = 0, unsigned long a4 = 0,
            unsigned long a5 = 0) noexcept {
  return syscall(__NR_keyctl, op, a2, a3, a4, a5);
}

unsigned long ptr(const void* p) noexcept {
  return reinterpret_cast<unsigned long>(p);
}

unsigned long id(long serial) noexcept {
  return static_cast<unsigned long>(serial);
}

// Permissions (the kernel's include/linux/key.h; not in the uapi headers):
// a possessor's only, none for the user, group or others (who, without
// them, cannot even see the key in /proc/keys).
constexpr unsigned long kPossessorView = 0x01000000, kPossessorSearch = 0x08000000,
                        kPossessorSetattr = 0x20000000, kPossessorAll = 0x3f000000;
constexpr unsigned long kKeyPermissions = kPossessorView | kPossessorSearch | kPossessorSetattr;
constexpr unsigned long kKeyringPermissions = kPossessorAll;

// Held while our keyrings are made (a possessor started, a session
// joined). A fork in another thread meanwhile would leave the child a
// mutex locked by a thread it does not have: the fork waits for them
// (pthread_atfork), and both sides go on with them free.
std::mutex process_mutex, shared_mutex;

void lock_for_fork() noexcept {
  process_mutex.lock();
  shared_mutex.lock();
}

void unlock_after_fork() noexcept {
  shared_mutex.unlock();
  process_mutex.unlock();
}

// Registered when the library is loaded: registered at the first use, a
// fork meanwhile would leave the child that registration's guard taken.
const bool held_across_fork =
    pthread_atfork(lock_for_fork, unlock_after_fork, unlock_after_fork) == 0;

}  // namespace

KeyResult process_keyring() noexcept {
  (void)held_across_fork;
  static KeyResult made{.value = 0, .error = -1};
  const std::lock_guard lock(process_mutex);
  // A fork's child has a process keyring of its own: made again there.
  static pid_t owner = 0;
  if (made && owner == getpid()) return made;
  // Asking for the process keyring with create = 1 is where a kernel
  // without keys (ENOSYS) or a seccomp filter (EPERM) says no.
  const KeyResult process = result_of(
      keyctl(KEYCTL_GET_KEYRING_ID, static_cast<unsigned long>(KEY_SPEC_PROCESS_KEYRING), 1));
  if (!process) return process;
  // Another copy of this library in the process (the provider carries
  // its own) may have made it already: taken as it is. Adding a second
  // keyring of that name would displace the first from @p, and the
  // kernel would drop it with every key the other copy holds there.
  if (const KeyResult found =
          result_of(keyctl(KEYCTL_SEARCH, id(process.value), ptr("keyring"), ptr("cryptoaccel")));
      found) {
    made = found;
    owner = getpid();
    return made;
  }
  made = result_of(
      syscall(__NR_add_key, "keyring", "cryptoaccel", nullptr, 0, KEY_SPEC_PROCESS_KEYRING));
  if (made) {
    (void)keyctl(KEYCTL_SETPERM, id(made.value), kKeyringPermissions);
    // The process keyring is in this thread's credentials only: the threads
    // already running reach our keyrings through a possessor started now
    // (possessor_thread.hpp). In a forked child, this is the first thread
    // of the child to need them, and the one that possesses them.
    start_possessor();
  }
  owner = getpid();
  return made;
}

KeyResult shared_keyring() noexcept {
  static KeyResult made{.value = 0, .error = -1};
  static pid_t owner = 0;
  const KeyResult process = process_keyring();
  if (!process) return process;
  const std::lock_guard lock(shared_mutex);
  if (made && owner == getpid()) return made;
  const long former = keyctl(KEYCTL_GET_KEYRING_ID, id(KEY_SPEC_SESSION_KEYRING), 0);
  // Once this thread has joined its new session it no longer possesses
  // the former one through it, and a keyring of possessor-only
  // permissions (a parent's session made here) could no longer be linked
  // into the new one: the keys of the process that forked this one would
  // be lost to this process's own children. Held through the process
  // keyring until linked.
  const bool held = former > 0 && keyctl(KEYCTL_LINK, id(former), id(process.value)) == 0;
  const KeyResult session = result_of(keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0));
  if (!session) {
    if (held) (void)keyctl(KEYCTL_UNLINK, id(former), id(process.value));
    return session;
  }
  if (former > 0) (void)keyctl(KEYCTL_LINK, id(former), id(session.value));
  if (held) (void)keyctl(KEYCTL_UNLINK, id(former), id(process.value));
  // The new session keyring grants its user view, read and link: another
  // process of the user could link it into its own session and so possess
  // everything in it. A possessor's permissions only.
  if (const KeyResult r =
          result_of(keyctl(KEYCTL_SETPERM, id(session.value), kKeyringPermissions));
      !r)
    return r;
  const KeyResult ring = result_of(
      syscall(__NR_add_key, "keyring", "cryptoaccel:shared", nullptr, 0, session.value));
  if (!ring) return ring;
  if (const KeyResult r = result_of(keyctl(KEYCTL_SETPERM, id(ring.value), kKeyringPermissions));
      !r)
    return r;
  // The process's other threads have their own session keyrings; they
  // possess the keys through the process keyring, or through its
  // possessor when they have none. A thread that does not possess the
  // process keyring itself (it was made by another thread, after this one
  // started) cannot link under it, and the possessor, which does not have
  // this new session keyring, cannot either: a possessor of this thread's
  // credentials serves this keyring.
  if (keyctl(KEYCTL_LINK, id(ring.value), id(process.value)) < 0 && errno == EACCES)
    start_possessor();
  made = ring;
  owner = getpid();
  return made;
}

KeyResult add_private_key(std::string_view description, std::span<const std::uint8_t> pkcs8,
                          KeySerial ring) noexcept {
  const std::string name(description);
  // Added and restricted on one thread: the permissions are set by the
  // thread that possesses the new key.
  return possessed([&]() noexcept {
    const KeyResult added = result_of(
        syscall(__NR_add_key, "asymmetric", name.c_str(), pkcs8.data(), pkcs8.size(), ring));
    if (!added) return added;
    if (const KeyResult r = result_of(keyctl(KEYCTL_SETPERM, id(added.value), kKeyPermissions));
        !r) {
      keyctl(KEYCTL_REVOKE, id(added.value));
      keyctl(KEYCTL_UNLINK, id(added.value), static_cast<unsigned long>(ring));
      return r;
    }
    return added;
  });
}

KeyResult query_key_bits(KeySerial key, const char* info) noexcept {
  keyctl_pkey_query query{};
  const KeyResult r = possessed([&]() noexcept {
    return result_of(
        keyctl(KEYCTL_PKEY_QUERY, static_cast<unsigned long>(key), 0, ptr(info), ptr(&query)));
  });
  return r ? KeyResult{.value = static_cast<long>(query.key_size), .error = 0} : r;
}

KeyResult pkey(PkeyOperation op, KeySerial key, const char* info, std::span<const std::uint8_t> in,
               std::span<std::uint8_t> out, std::span<const std::uint8_t> second) noexcept {
  keyctl_pkey_params params{};
  params.key_id = key;
  params.in_len = static_cast<__u32>(in.size());
  if (op == PkeyOperation::verify)
    params.in2_len = static_cast<__u32>(second.size());
  else
    params.out_len = static_cast<__u32>(out.size());
  int command = KEYCTL_PKEY_ENCRYPT;
  const void* last = out.data();
  switch (op) {
    case PkeyOperation::encrypt:
      break;
    case PkeyOperation::decrypt:
      command = KEYCTL_PKEY_DECRYPT;
      break;
    case PkeyOperation::sign:
      command = KEYCTL_PKEY_SIGN;
      break;
    case PkeyOperation::verify:
      command = KEYCTL_PKEY_VERIFY;
      last = second.data();
      break;
  }
  return possessed([&]() noexcept {
    return result_of(keyctl(command, ptr(&params), ptr(info), ptr(in.data()), ptr(last)));
  });
}

std::string describe(int error) {
  switch (error) {
    case ENOSYS:
      return "keyctl(2) is not there (a kernel without CONFIG_KEYS, or a seccomp filter that "
             "answers ENOSYS)";
    case EPERM:
      return "keyctl(2) is refused (" + std::string(std::strerror(error)) +
             "): a seccomp filter, such as Docker's default profile, or a security module";
    case EACCES:
      return "keyctl(2) is refused (" + std::string(std::strerror(error)) +
             "): the key is not this process's (it does not possess it: a process outside the "
             "family of the one that loaded it, or a child forked by another of its threads), "
             "or a seccomp filter or a security module refuses keyctl";
    case EBADMSG:
      return "the kernel could not parse a PKCS#8 private key: the pkcs8_key_parser module is "
             "not loaded (modprobe pkcs8_key_parser)";
    case ENODEV:
      return "the kernel has no asymmetric key type (CONFIG_ASYMMETRIC_KEY_TYPE)";
    case ENOPKG:
      return "the kernel has no RSA implementation for this request (ENOPKG)";
    case EDQUOT:
      return "the user's key quota is spent (/proc/sys/kernel/keys/maxkeys, maxbytes)";
    default:
      return std::strerror(error);
  }
}

KernelKey::KernelKey(KeySerial key, KeySerial ring) noexcept
    : key_(key), ring_(ring), owner_(getpid()) {}

KernelKey::~KernelKey() {
  if (getpid() != owner_) return;
  // Whichever thread lets the key go, it is revoked (by a possessor when
  // this thread does not possess it).
  (void)possessed([this]() noexcept {
    const KeyResult revoked = result_of(keyctl(KEYCTL_REVOKE, static_cast<unsigned long>(key_)));
    (void)keyctl(KEYCTL_UNLINK, static_cast<unsigned long>(key_), static_cast<unsigned long>(ring_));
    return revoked;
  });
}

}  // namespace cryptoaccel::keyring
