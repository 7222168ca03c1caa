// How an RSA key reaches a driver: Driver::open_session's `key` is this
// blob, made by RsaKey (cryptoaccel/rsa.hpp). A header says what the key is
// and how long its modulus; the rest is DER a driver hands to its own
// parser (OpenSSL's d2i_*, the kernel's pkcs8_key_parser):
//
//   byte 0     form: 1 private key, 2 public key, 3 kernel key
//   bytes 1-2  modulus length in bytes, big-endian
//   bytes 3-   private: PKCS#8 PrivateKeyInfo (every CRT component present);
//              public: SubjectPublicKeyInfo;
//              kernel: the key's serial in the kernel keyring (4 bytes,
//              big-endian), then the SubjectPublicKeyInfo. The private key
//              is in the kernel only (RsaKey::keep_in_kernel_keyring): only
//              a driver that reaches the keyring can do private operations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace cryptoaccel {

enum class RsaKeyForm : std::uint8_t { private_key = 1, public_key = 2, kernel_key = 3 };

struct RsaKeyBlobView {
  RsaKeyForm form;
  std::size_t modulus_bytes;
  std::span<const std::uint8_t> der;  // the kernel form: the public key's
  std::int32_t kernel_serial = 0;     // the kernel form's key
};

inline constexpr std::size_t kRsaKeyBlobHeader = 3;
inline constexpr std::size_t kRsaKernelSerialBytes = 4;

// The blob's parts, or nothing when it is not one.
inline std::optional<RsaKeyBlobView> read_rsa_key_blob(
    std::span<const std::uint8_t> blob) noexcept {
  if (blob.size() <= kRsaKeyBlobHeader) return std::nullopt;
  const auto form = static_cast<RsaKeyForm>(blob[0]);
  const std::size_t modulus_bytes = std::size_t{blob[1]} << 8 | blob[2];
  if (form == RsaKeyForm::kernel_key) {
    if (blob.size() <= kRsaKeyBlobHeader + kRsaKernelSerialBytes) return std::nullopt;
    const std::uint32_t serial = std::uint32_t{blob[3]} << 24 | std::uint32_t{blob[4]} << 16 |
                                 std::uint32_t{blob[5]} << 8 | blob[6];
    return RsaKeyBlobView{.form = form,
                          .modulus_bytes = modulus_bytes,
                          .der = blob.subspan(kRsaKeyBlobHeader + kRsaKernelSerialBytes),
                          .kernel_serial = static_cast<std::int32_t>(serial)};
  }
  if (form != RsaKeyForm::private_key && form != RsaKeyForm::public_key) return std::nullopt;
  return RsaKeyBlobView{
      .form = form, .modulus_bytes = modulus_bytes, .der = blob.subspan(kRsaKeyBlobHeader)};
}

}  // namespace cryptoaccel
