// The TLS CBC record helpers against records built by hand.
#include "tls_cbc.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace cryptoaccel::provider {
namespace {

using Bytes = std::vector<std::uint8_t>;

// explicit IV (16) || payload || MAC || padding, already "decrypted".
Bytes record(std::size_t payload, std::size_t mac, std::size_t pad_value) {
  Bytes r(16 + payload + mac, 0);
  for (std::size_t i = 0; i < payload; ++i) r[16 + i] = static_cast<std::uint8_t>(i);
  for (std::size_t i = 0; i < mac; ++i) r[16 + payload + i] = static_cast<std::uint8_t>(0xa0 + i);
  r.insert(r.end(), pad_value + 1, static_cast<std::uint8_t>(pad_value));
  return r;
}

TEST(TlsCbc, PadMakesWholeBlocksOfTheRightValue) {
  for (std::size_t n = 0; n < 40; ++n) {
    Bytes buffer(n + 16, 0xee);
    const std::size_t padded = tls_cbc_pad(buffer.data(), n, 16, 0x0303);
    EXPECT_EQ(padded % 16, 0u);
    EXPECT_GT(padded, n);
    for (std::size_t i = n; i < padded; ++i) EXPECT_EQ(buffer[i], padded - n - 1);
  }
}

TEST(TlsCbc, GoodRecordsGivePayloadAndMac) {
  for (std::size_t payload : {0, 1, 15, 100}) {
    for (std::size_t mac : {0, 20, 32, 48}) {
      // Every padding length that keeps whole blocks, up to 255.
      for (std::size_t pad = 0; pad < 256; ++pad) {
        Bytes r = record(payload, mac, pad);
        if (r.size() % 16 != 0) continue;
        std::uint8_t got[64] = {};
        const TlsCbcRecord out = tls_cbc_unpad(r.data(), r.size(), 16, 0x0303, mac, got);
        ASSERT_TRUE(out.publicly_valid);
        EXPECT_TRUE(out.padding_good) << payload << ' ' << mac << ' ' << pad;
        EXPECT_EQ(out.offset, 16u);
        EXPECT_EQ(out.payload, payload);
        for (std::size_t i = 0; i < mac; ++i) EXPECT_EQ(got[i], 0xa0 + i);
      }
    }
  }
}

TEST(TlsCbc, BadPaddingSpoilsTheMac) {
  Bytes r = record(40, 32, 7);
  ASSERT_EQ(r.size() % 16, 0u);
  r[r.size() - 3] ^= 1;  // one padding byte wrong
  std::uint8_t got[64] = {};
  const TlsCbcRecord out = tls_cbc_unpad(r.data(), r.size(), 16, 0x0303, 32, got);
  ASSERT_TRUE(out.publicly_valid);
  EXPECT_FALSE(out.padding_good);
  bool equal = true;
  for (std::size_t i = 0; i < 32; ++i) equal = equal && got[i] == 0xa0 + i;
  EXPECT_FALSE(equal);
  // A padding length beyond the record.
  Bytes s(48, 200);
  EXPECT_FALSE(tls_cbc_unpad(s.data(), s.size(), 16, 0x0303, 20, got).padding_good);
}

TEST(TlsCbc, ShortRecordsArePubliclyInvalid) {
  std::uint8_t got[64];
  Bytes r(32, 0);
  EXPECT_FALSE(tls_cbc_unpad(r.data(), 16, 16, 0x0303, 0, got).publicly_valid);  // IV only
  EXPECT_FALSE(tls_cbc_unpad(r.data(), 32, 16, 0x0303, 20, got).publicly_valid);
  EXPECT_FALSE(tls_cbc_unpad(r.data(), 31, 16, 0x0303, 0, got).publicly_valid);
  EXPECT_TRUE(tls_cbc_unpad(r.data(), 16, 16, 0x0301, 0, got).publicly_valid);  // TLS 1.0
}

// SSL 3.0 pads with arbitrary bytes (zeros here) and a length byte, and
// checks only that the padding is shorter than a block.
TEST(TlsCbc, Ssl3PaddingIsZerosAndItsLength) {
  Bytes buffer(40, 0xee);
  EXPECT_EQ(tls_cbc_pad(buffer.data(), 20, 16, 0x0300), 32u);
  for (std::size_t i = 20; i < 31; ++i) EXPECT_EQ(buffer[i], 0) << i;
  EXPECT_EQ(buffer[31], 11);
  std::uint8_t got[64] = {};
  const TlsCbcRecord good = tls_cbc_unpad(buffer.data(), 32, 16, 0x0300, 0, got);
  EXPECT_TRUE(good.padding_good);
  EXPECT_EQ(good.offset, 0u);  // no explicit IV
  EXPECT_EQ(good.payload, 20u);
  buffer[31] = 16;  // a whole block of padding and more: not minimal
  EXPECT_FALSE(tls_cbc_unpad(buffer.data(), 32, 16, 0x0300, 0, got).padding_good);
}

TEST(TlsCbc, VersionsWithoutCbcRecordsArePubliclyInvalid) {
  std::uint8_t got[64];
  Bytes r = record(16, 0, 15);
  ASSERT_EQ(r.size() % 16, 0u);
  for (unsigned version : {0x0302U, 0x0303U, 0xfeffU, 0xfefdU, 0x0100U})
    EXPECT_TRUE(tls_cbc_unpad(r.data(), r.size(), 16, version, 0, got).padding_good) << version;
  for (unsigned version : {0x0304U, 0x0200U, 0U})
    EXPECT_FALSE(tls_cbc_unpad(r.data(), r.size(), 16, version, 0, got).publicly_valid) << version;
}

}  // namespace
}  // namespace cryptoaccel::provider
