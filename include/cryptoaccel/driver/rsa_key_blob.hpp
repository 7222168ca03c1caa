// How an RSA key reaches a driver: Driver::open_session's `key` is this
// blob, made by RsaKey (cryptoaccel/rsa.hpp). A header says what the key is
// and how long its modulus; the rest is DER a driver hands to its own
// parser (OpenSSL's d2i_*, the kernel's pkcs8_key_parser):
//
//   byte 0     form: 1 private key, 2 public key
//   bytes 1-2  modulus length in bytes, big-endian
//   bytes 3-   private: PKCS#8 PrivateKeyInfo (every CRT component present);
//              public: SubjectPublicKeyInfo
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace cryptoaccel {

enum class RsaKeyForm : std::uint8_t { private_key = 1, public_key = 2 };

struct RsaKeyBlobView {
  RsaKeyForm form;
  std::size_t modulus_bytes;
  std::span<const std::uint8_t> der;
};

inline constexpr std::size_t kRsaKeyBlobHeader = 3;

// The blob's parts, or nothing when it is not one.
inline std::optional<RsaKeyBlobView> read_rsa_key_blob(
    std::span<const std::uint8_t> blob) noexcept {
  if (blob.size() <= kRsaKeyBlobHeader) return std::nullopt;
  const auto form = static_cast<RsaKeyForm>(blob[0]);
  if (form != RsaKeyForm::private_key && form != RsaKeyForm::public_key) return std::nullopt;
  return RsaKeyBlobView{.form = form,
                        .modulus_bytes = std::size_t{blob[1]} << 8 | blob[2],
                        .der = blob.subspan(kRsaKeyBlobHeader)};
}

}  // namespace cryptoaccel
