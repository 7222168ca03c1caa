#include "core/hex.hpp"

#include <gtest/gtest.h>

namespace cryptoaccel::detail {
namespace {

TEST(Hex, RoundTrips) {
  const auto bytes = hex_decode("00ff10Ab");
  ASSERT_TRUE(bytes);
  EXPECT_EQ(*bytes, (std::vector<std::uint8_t>{0x00, 0xff, 0x10, 0xab}));
  EXPECT_EQ(hex_encode(*bytes), "00ff10ab");
  EXPECT_EQ(hex_decode("")->size(), 0u);
}

TEST(Hex, RejectsOddLengthAndNonHex) {
  EXPECT_FALSE(hex_decode("abc"));
  EXPECT_FALSE(hex_decode("zz"));
  EXPECT_FALSE(hex_decode("0 "));
}

}  // namespace
}  // namespace cryptoaccel::detail
