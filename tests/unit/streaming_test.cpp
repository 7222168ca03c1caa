// Streaming updates give exactly the bytes of one call over the whole input,
// however the input is split, in place or not.
#include <gtest/gtest.h>

#include <random>

#include "cryptoaccel/cryptoaccel.hpp"
#include "test_util.hpp"

namespace cryptoaccel {
namespace {

using test::ByteVector;
using test::random_bytes;

// Splits [0, n) into pieces of random length that are multiples of `unit`.
std::vector<std::size_t> random_cuts(std::size_t n, std::size_t unit, std::mt19937& rng) {
  std::vector<std::size_t> pieces;
  std::size_t left = n;
  while (left > 0) {
    std::size_t take = unit * std::uniform_int_distribution<std::size_t>(0, 5)(rng);
    take = std::min(take, left);
    pieces.push_back(take);  // zero-length updates are allowed and must be harmless
    left -= take;
  }
  return pieces;
}

class CipherStreaming : public testing::TestWithParam<const char*> {};

TEST_P(CipherStreaming, AnySplitEqualsOneShot) {
  const Algorithm& a = *find_algorithm(GetParam());
  CipherSession s(a.name, random_bytes(a.key_size.min));
  std::mt19937 rng(1234);
  const std::size_t unit = a.input_multiple;
  for (int round = 0; round < 20; ++round) {
    const ByteVector iv = random_bytes(a.iv_size);
    const ByteVector pt =
        random_bytes(unit * std::uniform_int_distribution<std::size_t>(1, 40)(rng));
    const ByteVector expected = s.encrypt(iv, pt);
    for (Direction dir : {Direction::encrypt, Direction::decrypt}) {
      const ByteVector& in = dir == Direction::encrypt ? pt : expected;
      const ByteVector& want = dir == Direction::encrypt ? expected : pt;
      ByteVector out(in.size());
      s.begin(dir, iv);
      std::size_t at = 0;
      for (std::size_t piece : random_cuts(in.size(), unit, rng)) {
        s.update(std::span(in).subspan(at, piece), std::span(out).subspan(at, piece));
        at += piece;
      }
      EXPECT_EQ(out, want) << a.name << " round " << round;
      // In place, all in one buffer.
      ByteVector buffer = in;
      s.begin(dir, iv);
      at = 0;
      for (std::size_t piece : random_cuts(in.size(), unit, rng)) {
        auto part = std::span(buffer).subspan(at, piece);
        s.update(part, part);
        at += piece;
      }
      EXPECT_EQ(buffer, want) << a.name << " in place, round " << round;
    }
    EXPECT_EQ(s.last_driver(), "soft");
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, CipherStreaming,
                         testing::Values("aes-128-ecb", "aes-128-cbc", "aes-256-cbc", "aes-128-ctr",
                                         "aes-192-ctr", "aes-256-ctr", "des-cbc", "des-ede3-cbc"));

TEST(CtrStreaming, CounterCarriesAcrossAll128Bits) {
  CipherSession s("aes-128-ctr", random_bytes(16));
  const ByteVector iv = test::hex("00000000000000fffffffffffffffffe");
  const ByteVector pt = random_bytes(100);
  const ByteVector expected = s.encrypt(iv, pt);
  ByteVector out(pt.size());
  s.begin(Direction::encrypt, iv);
  for (std::size_t at = 0; at < pt.size(); at += 7) {
    const std::size_t n = std::min<std::size_t>(7, pt.size() - at);
    s.update(std::span(pt).subspan(at, n), std::span(out).subspan(at, n));
  }
  EXPECT_EQ(out, expected);
}

TEST(CipherOneShot, RepeatedCallsWithTheSameIvAgree) {
  // The soft driver skips re-initialisation when a request continues its
  // chain; a repeated IV must not be mistaken for a continuation.
  CipherSession s("aes-128-cbc", random_bytes(16));
  const ByteVector iv = random_bytes(16), pt = random_bytes(64);
  const ByteVector first = s.encrypt(iv, pt);
  EXPECT_EQ(s.encrypt(iv, pt), first);
  EXPECT_EQ(s.decrypt(iv, first), pt);
  EXPECT_EQ(s.decrypt(iv, first), pt);
  // A new IV equal to the last ciphertext block continues the chain: the
  // result must equal encrypting the concatenation.
  const ByteVector next_iv(first.end() - 16, first.end());
  const ByteVector second = s.encrypt(next_iv, pt);
  ByteVector both = pt;
  both.insert(both.end(), pt.begin(), pt.end());
  ByteVector joined = first;
  joined.insert(joined.end(), second.begin(), second.end());
  EXPECT_EQ(s.encrypt(iv, both), joined);
}

class DigestStreaming : public testing::TestWithParam<const char*> {};

TEST_P(DigestStreaming, AnySplitEqualsOneShot) {
  const Algorithm& a = *find_algorithm(GetParam());
  std::mt19937 rng(99);
  auto make = [&]() -> DigestSession {
    if (a.kind == AlgorithmKind::mac) return MacSession(a.name, random_bytes(37));
    return DigestSession(a.name);
  };
  DigestSession s = make();
  for (int round = 0; round < 10; ++round) {
    const ByteVector msg = random_bytes(std::uniform_int_distribution<std::size_t>(0, 600)(rng));
    const ByteVector expected = s.digest(msg);
    std::size_t at = 0;
    for (std::size_t piece : random_cuts(msg.size(), 1 + round, rng)) {
      s.update(std::span(msg).subspan(at, piece));
      at += piece;
    }
    EXPECT_EQ(s.final(), expected) << a.name;
  }
  // final() with no update is the digest of the empty message.
  EXPECT_EQ(s.final(), s.digest({}));
}

// A clone continues from the running state; both finish independently (TLS
// copies its transcript hash mid-handshake and keeps hashing the original).
TEST_P(DigestStreaming, CloneContinuesIndependently) {
  const Algorithm& a = *find_algorithm(GetParam());
  const ByteVector key = random_bytes(20);
  DigestSession s = a.kind == AlgorithmKind::mac ? MacSession(a.name, key) : DigestSession(a.name);
  const ByteVector head = random_bytes(100), tail1 = random_bytes(77), tail2 = random_bytes(5);
  auto joined = [](ByteVector x, const ByteVector& y) {
    x.insert(x.end(), y.begin(), y.end());
    return x;
  };
  s.update(head);
  DigestSession copy = s.clone();
  copy.update(tail2);
  s.update(tail1);
  EXPECT_EQ(s.final(), s.digest(joined(head, tail1))) << a.name;
  EXPECT_EQ(copy.final(), copy.digest(joined(head, tail2))) << a.name;
  // A clone of an idle session is a fresh session with the same key.
  DigestSession idle = s.clone();
  EXPECT_EQ(idle.digest(head), s.digest(head)) << a.name;
}

INSTANTIATE_TEST_SUITE_P(Digests, DigestStreaming,
                         testing::Values("md5", "sha1", "sha224", "sha256", "sha384", "sha512",
                                         "hmac-md5", "hmac-sha1", "hmac-sha256", "hmac-sha512"));

TEST(MacSession, EmptyAndLongKeysWork) {
  // RFC 4231 test case 6: a 131-byte key is hashed first.
  const ByteVector key(131, 0xaa);
  const std::string msg = "Test Using Larger Than Block-Size Key - Hash Key First";
  MacSession s("hmac-sha256", key);
  EXPECT_EQ(
      detail::hex_encode(s.digest({reinterpret_cast<const std::uint8_t*>(msg.data()), msg.size()})),
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  MacSession empty("hmac-sha256", {});
  EXPECT_EQ(detail::hex_encode(empty.digest({})),
            "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
}

}  // namespace
}  // namespace cryptoaccel
