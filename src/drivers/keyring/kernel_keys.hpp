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
// the user's session, and go when the process ends.
KeyResult process_keyring() noexcept;

// add_key("asymmetric", description, PKCS#8 DER, ring).
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
// use it) and unlinked when this goes.
class KernelKey {
 public:
  KernelKey(KeySerial key, KeySerial ring) noexcept : key_(key), ring_(ring) {}
  KernelKey(const KernelKey&) = delete;
  KernelKey& operator=(const KernelKey&) = delete;
  ~KernelKey();
  KeySerial serial() const noexcept { return key_; }

 private:
  KeySerial key_;
  KeySerial ring_;
};

}  // namespace cryptoaccel::keyring
