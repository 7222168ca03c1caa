// The kernel's key retention service, as this driver uses it: add_key(2)
// and keyctl(2) called directly (no libkeyutils), keys owned by an object
// that revokes and unlinks them when it goes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace cryptoaccel::keyring {

using KeySerial = std::int32_t;

// The result of a call: a value (a serial, a length) or an errno.
struct KeyResult {
  long value = 0;
  int error = 0;  // 0: value holds the result
  explicit operator bool() const noexcept { return error == 0; }
};

// The keyring this process owns for its keys: a keyring named
// "cryptoaccel" linked into the process keyring (@p), made on first use.
// Keys there are possessed by this process (and its threads) only, never by
// the user's session, and go when the process ends. A forked child has a
// process keyring of its own, so these keys are not its: sessions' keys.
// The thread that makes it starts a possessor (possessor_thread.hpp) for
// the threads that were already running, which the kernel does not give it.
KeyResult process_keyring() noexcept;

// The keyring for keys the process keeps in the kernel for good
// (RsaKey::keep_in_kernel_keyring, the provider's store and key_storage =
// keyring), shared with the children it forks: a keyring named
// "cryptoaccel:shared" in a new session keyring that the calling thread
// joins on first use (its former session keyring linked into the new one,
// so nothing it reached is lost) and linked under process_keyring() for
// the process's other threads (those that do not possess that reach it
// through a possessor). Children forked by that thread afterwards
// (pre-forking servers' workers) inherit the session keyring and so
// possess the keys; a process outside that family, of this user or
// another, does not, and every permission is a possessor's only (the
// session keyring's too), so it can neither use, list, link nor revoke
// them. The keys go when the last process of the family does. Made again
// in a forked child that keeps keys of its own.
KeyResult shared_keyring() noexcept;

// add_key("asymmetric", description, PKCS#8 DER, ring), with a possessor's
// permissions only (view, search: use, setattr: revoke). This call, the
// queries and KEYCTL_PKEY_* below, and a KernelKey's revocation run on a
// possessor when the calling thread does not possess the keyring or key.
KeyResult add_private_key(std::string_view description, std::span<const std::uint8_t> pkcs8,
                          KeySerial ring) noexcept;

// KEYCTL_PKEY_QUERY under `info` ("enc=raw"): the key's size in bits.
KeyResult query_key_bits(KeySerial key, const char* info) noexcept;

enum class PkeyOperation : int { encrypt, decrypt, sign, verify };

// KEYCTL_PKEY_ENCRYPT/DECRYPT/SIGN: the output's length. VERIFY: 0 when
// `second` (the signature) matches `in`.
KeyResult pkey(PkeyOperation op, KeySerial key, const char* info, std::span<const std::uint8_t> in,
               std::span<std::uint8_t> out, std::span<const std::uint8_t> second = {}) noexcept;

// An errno as a sentence about what it means here.
std::string describe(int error);

// A key in a keyring of ours: revoked (so that no handle left anywhere can
// use it) and unlinked when this goes, by the process that made it only: a
// forked child's copy going (a worker's exit) leaves the key to the parent
// and the other children.
class KernelKey {
 public:
  KernelKey(KeySerial key, KeySerial ring) noexcept;
  KernelKey(const KernelKey&) = delete;
  KernelKey& operator=(const KernelKey&) = delete;
  ~KernelKey();
  KeySerial serial() const noexcept { return key_; }

 private:
  KeySerial key_;
  KeySerial ring_;
  int owner_;  // the pid that made it
};

}  // namespace cryptoaccel::keyring
