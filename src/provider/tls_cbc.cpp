#include "tls_cbc.hpp"

#include <algorithm>
#include <cstring>

namespace cryptoaccel::provider {
namespace {

constexpr std::size_t kBits = sizeof(std::size_t) * 8;

// All ones when the top bit of `a` is set, else zero.
inline std::size_t top_bit_mask(std::size_t a) {
  return std::size_t{0} - (a >> (kBits - 1));
}
// Keeps the compiler from turning masks back into branches.
inline std::size_t barrier(std::size_t a) {
  asm volatile("" : "+r"(a));
  return a;
}
inline std::size_t mask_lt(std::size_t a, std::size_t b) {
  return top_bit_mask(a ^ ((a ^ b) | ((a - b) ^ b)));
}
inline std::size_t mask_ge(std::size_t a, std::size_t b) {
  return ~mask_lt(a, b);
}
inline std::size_t mask_eq(std::size_t a, std::size_t b) {
  const std::size_t x = a ^ b;
  return top_bit_mask(~x & (x - 1));
}

constexpr std::size_t kMaxMac = 64;

}  // namespace

std::size_t tls_cbc_pad(std::uint8_t* record, std::size_t length, std::size_t block,
                        unsigned tls_version) noexcept {
  const std::size_t pad = block - length % block;  // 1..block bytes, each of value pad-1
  std::memset(record + length, tls_version == kSsl3Version ? 0 : static_cast<int>(pad - 1), pad);
  record[length + pad - 1] = static_cast<std::uint8_t>(pad - 1);
  return length + pad;
}

TlsCbcRecord tls_cbc_unpad(const std::uint8_t* record, std::size_t length, std::size_t block,
                           unsigned tls_version, std::size_t mac_size, std::uint8_t* mac) noexcept {
  TlsCbcRecord result;
  // Everything checked before the padding byte is read is public.
  if (length == 0 || length % block != 0 || mac_size > kMaxMac) return result;
  const bool explicit_iv = tls_version == kTls11Version || tls_version == kTls12Version ||
                           tls_version == kDtls1Version || tls_version == kDtls12Version ||
                           tls_version == kDtls1BadVersion;
  if (!explicit_iv && tls_version != kTls1Version && tls_version != kSsl3Version) return result;
  if (explicit_iv) {
    if (length < block) return result;
    result.offset = block;
    length -= block;
  }
  if (length < mac_size + 1) return result;
  result.publicly_valid = true;
  const std::uint8_t* data = record + result.offset;

  const std::size_t pad = data[length - 1];
  std::size_t good = mask_ge(length, mac_size + 1 + pad);
  if (tls_version == kSsl3Version) {
    // SSL 3.0's padding bytes are arbitrary; it must only be minimal.
    good &= mask_ge(block, pad + 1);
  } else {
    // Check the largest padding possible whatever `pad` is: how much is
    // checked must not depend on it.
    const std::size_t to_check = std::min<std::size_t>(256, length);
    for (std::size_t i = 0; i < to_check; ++i) {
      const std::size_t in_padding = mask_ge(pad, i);
      good &= ~(in_padding & (pad ^ data[length - 1 - i]));
    }
    good = mask_eq(good & 0xff, 0xff);
  }
  good = barrier(good);
  const std::size_t unpadded = length - (good & (pad + 1));
  result.padding_good = good != 0;
  result.payload = unpadded - mac_size;
  if (mac_size == 0) return result;

  // Copy the MAC, which ends at a secret position within the last 256+mac
  // bytes: every byte of that window is read, and the rotation is undone
  // without a secret-dependent index.
  const std::size_t mac_end = unpadded;
  const std::size_t mac_start = mac_end - mac_size;
  const std::size_t scan_start = length > mac_size + 256 ? length - (mac_size + 256) : 0;
  std::uint8_t rotated[kMaxMac] = {};
  std::size_t rotate = 0;
  for (std::size_t i = scan_start, j = 0; i < length; ++i) {
    const std::size_t started = mask_ge(i, mac_start);
    const std::size_t ended = mask_ge(i, mac_end);
    rotated[j] |= static_cast<std::uint8_t>(data[i] & started & ~ended);
    rotate |= j & mask_eq(i, mac_start);
    ++j;
    j &= mask_lt(j, mac_size);
  }
  const std::uint8_t spoil = static_cast<std::uint8_t>(~good);
  for (std::size_t k = 0; k < mac_size; ++k) {
    std::uint8_t byte = 0;
    for (std::size_t m = 0; m < mac_size; ++m)
      byte |= static_cast<std::uint8_t>(rotated[m] & mask_eq(m, rotate));
    // With bad padding the result is the complement of record bytes: equal
    // to the true MAC only if an attacker could compute HMAC without the key.
    mac[k] = byte ^ spoil;
    ++rotate;
    rotate &= mask_lt(rotate, mac_size);
  }
  return result;
}

}  // namespace cryptoaccel::provider
