#include "kernel_keys.hpp"

#include <linux/keyctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>

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

}  // namespace

KeyResult process_keyring() noexcept {
  static std::mutex mutex;
  static KeyResult made{.value = 0, .error = -1};
  const std::lock_guard lock(mutex);
  // A fork's child has a process keyring of its own: made again there.
  static pid_t owner = 0;
  if (made && owner == getpid()) return made;
  // Asking for the process keyring with create = 1 is where a kernel
  // without keys (ENOSYS) or a seccomp filter (EPERM) says no.
  const KeyResult process = result_of(
      keyctl(KEYCTL_GET_KEYRING_ID, static_cast<unsigned long>(KEY_SPEC_PROCESS_KEYRING), 1));
  if (!process) return process;
  made = result_of(
      syscall(__NR_add_key, "keyring", "cryptoaccel", nullptr, 0, KEY_SPEC_PROCESS_KEYRING));
  owner = getpid();
  return made;
}

KeyResult add_private_key(std::string_view description, std::span<const std::uint8_t> pkcs8,
                          KeySerial ring) noexcept {
  const std::string name(description);
  return result_of(
      syscall(__NR_add_key, "asymmetric", name.c_str(), pkcs8.data(), pkcs8.size(), ring));
}

KeyResult query_key_bits(KeySerial key, const char* info) noexcept {
  keyctl_pkey_query query{};
  const KeyResult r = result_of(
      keyctl(KEYCTL_PKEY_QUERY, static_cast<unsigned long>(key), 0, ptr(info), ptr(&query)));
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
  return result_of(keyctl(command, ptr(&params), ptr(info), ptr(in.data()), ptr(last)));
}

std::string describe(int error) {
  switch (error) {
    case ENOSYS:
      return "keyctl(2) is not there (a kernel without CONFIG_KEYS, or a seccomp filter that "
             "answers ENOSYS)";
    case EPERM:
    case EACCES:
      return "keyctl(2) is refused (" + std::string(std::strerror(error)) +
             "): a seccomp filter, such as Docker's default profile, or a security module";
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

KernelKey::~KernelKey() {
  keyctl(KEYCTL_REVOKE, static_cast<unsigned long>(key_));
  keyctl(KEYCTL_UNLINK, static_cast<unsigned long>(key_), static_cast<unsigned long>(ring_));
}

}  // namespace cryptoaccel::keyring
