// SecretBytes, the one type that holds keys: deep copies, storage wiped on
// clear and on re-assignment, moved-from copies empty, never a null data().
#include "cryptoaccel/driver/secret_bytes.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace cryptoaccel::test {
namespace {

const std::vector<std::uint8_t> kKey{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

TEST(SecretBytes, CopiesAreDeepAndIndependent) {
  SecretBytes a(kKey);
  SecretBytes b = a;
  EXPECT_NE(a.data(), b.data());
  EXPECT_TRUE(b.equals(kKey));
  a.clear();
  EXPECT_TRUE(a.empty());
  EXPECT_TRUE(b.equals(kKey)) << "clearing one copy leaves the other";
  a = b;
  EXPECT_TRUE(a.equals(kKey));
}

TEST(SecretBytes, ClearAndReassignWipeTheOldBytesInPlace) {
  SecretBytes s(kKey);
  const std::uint8_t* storage = s.data();
  s.clear();
  for (std::size_t i = 0; i < kKey.size(); ++i) EXPECT_EQ(storage[i], 0) << i;
  const std::vector<std::uint8_t> shorter{9, 9, 9, 9};
  s.assign(kKey);
  s.assign(shorter);
  EXPECT_EQ(s.data(), storage) << "a key that fits reuses the storage";
  EXPECT_TRUE(s.equals(shorter));
  for (std::size_t i = shorter.size(); i < kKey.size(); ++i) EXPECT_EQ(storage[i], 0) << i;
}

TEST(SecretBytes, MovedFromIsEmptyAndDataIsNeverNull) {
  SecretBytes a(kKey);
  SecretBytes b = std::move(a);
  EXPECT_TRUE(b.equals(kKey));
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): that is the point
  EXPECT_NE(a.data(), nullptr);
  EXPECT_NE(SecretBytes().data(), nullptr) << "OpenSSL reads a null key as keep the old one";
}

TEST(SecretBytes, EqualsComparesLengthAndContents) {
  const SecretBytes s(kKey);
  std::vector<std::uint8_t> other = kKey;
  EXPECT_TRUE(s.equals(other));
  other.back() ^= 1;
  EXPECT_FALSE(s.equals(other));
  other.pop_back();
  EXPECT_FALSE(s.equals(other));
}

}  // namespace
}  // namespace cryptoaccel::test
