// TLS 1.0-1.2 CBC records (RFC 5246 6.2.3.2), as libssl hands them to a
// provided cipher: one update per record, padding added on encryption, and
// on decryption the explicit IV, padding and MAC removed in constant time
// (Lucky Thirteen: nothing about the padding may show in time or in the
// result before the MAC is checked).
#pragma once

#include <cstddef>
#include <cstdint>

namespace cryptoaccel::provider {

inline constexpr unsigned kSsl3Version = 0x0300;
inline constexpr unsigned kTls1Version = 0x0301;
inline constexpr unsigned kTls11Version = 0x0302;
inline constexpr unsigned kTls12Version = 0x0303;
inline constexpr unsigned kDtls1Version = 0xfeff;
inline constexpr unsigned kDtls12Version = 0xfefd;
inline constexpr unsigned kDtls1BadVersion = 0x0100;  // OpenSSL's pre-RFC DTLS

// Writes TLS padding after `length` bytes of `record` (n+1 bytes of value
// n, up to the next multiple of `block`; SSL 3.0's are zeros but the last)
// and returns the padded length. The caller guarantees room for a whole
// extra block.
std::size_t tls_cbc_pad(std::uint8_t* record, std::size_t length, std::size_t block,
                        unsigned tls_version) noexcept;

struct TlsCbcRecord {
  bool publicly_valid = false;  // false: too short to hold what it must (not secret)
  bool padding_good = false;    // computed in constant time
  std::size_t offset = 0;       // where the payload starts (after the explicit IV)
  std::size_t payload = 0;      // payload length, without MAC and padding
};

// Inspects a decrypted record of `length` bytes: skips the explicit IV for
// TLS 1.1 and later and DTLS, checks the padding (SSL 3.0's only for its
// length) and copies the MAC (mac_size bytes,
// 0 under encrypt-then-MAC) to `mac` in constant time. With bad padding the
// MAC is replaced by bytes no valid MAC can equal without the MAC key, so
// that the failure shows only when libssl compares MACs. A version none of
// these (TLS 1.3 has no CBC) makes every record publicly invalid, as in
// OpenSSL.
TlsCbcRecord tls_cbc_unpad(const std::uint8_t* record, std::size_t length, std::size_t block,
                           unsigned tls_version, std::size_t mac_size, std::uint8_t* mac) noexcept;

}  // namespace cryptoaccel::provider
