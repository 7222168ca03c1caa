// Streaming updates give exactly the bytes of one call over the whole input,
// however the input is split, in place or not.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

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
                                         "aes-192-ctr", "aes-256-ctr", "des-cbc", "des-ede3-cbc",
                                         "chacha20"));

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

// RFC 8439 2.4.2: the "sunscreen" message, key 00..1f, nonce
// 000000000000004a00000000, block counter 1 (OpenSSL's IV: le32 counter ||
// nonce). Streamed in odd pieces that stop inside 64-byte blocks and cross
// their boundaries, it gives the RFC's ciphertext.
TEST(ChaCha20Streaming, OddSplitsGiveTheRfcCiphertext) {
  const ByteVector key =
      test::hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  const ByteVector iv = test::hex("01000000000000000000004a00000000");
  const std::string text =
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the "
      "future, sunscreen would be it.";
  const ByteVector pt(text.begin(), text.end());
  const ByteVector want = test::hex(
      "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62"
      "b3"
      "571639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7"
      "7937365af90bbf74a35be6b40b8eedf2785e42874d");
  CipherSession s("chacha20", key);
  EXPECT_EQ(s.encrypt(iv, pt), want);
  for (const std::vector<std::size_t>& pieces :
       {std::vector<std::size_t>{1, 62, 1, 3, 47}, {63, 2, 49}, {64, 0, 50}, {33, 33, 33, 15}}) {
    ByteVector out(pt.size());
    s.begin(Direction::encrypt, iv);
    std::size_t at = 0;
    for (std::size_t n : pieces) {
      s.update(std::span(pt).subspan(at, n), std::span(out).subspan(at, n));
      at += n;
    }
    ASSERT_EQ(at, pt.size());
    EXPECT_EQ(out, want) << "first piece " << pieces.front();
  }
}

// The block counter is 32 bits in RFC 8439; OpenSSL carries into the next
// word, and so does a stream (and a request cut where the counter wraps).
TEST(ChaCha20Streaming, CounterCarriesAsOpenSslDoes) {
  CipherSession s("chacha20", random_bytes(32));
  const ByteVector iv = test::hex("feffffff0000000000000000000000aa");
  const ByteVector pt = random_bytes(300);
  const ByteVector expected = s.encrypt(iv, pt);
  ByteVector out(pt.size());
  s.begin(Direction::encrypt, iv);
  for (std::size_t at = 0; at < pt.size(); at += 37) {
    const std::size_t n = std::min<std::size_t>(37, pt.size() - at);
    s.update(std::span(pt).subspan(at, n), std::span(out).subspan(at, n));
  }
  EXPECT_EQ(out, expected);
  // Blocks 2 and 3 of the request are blocks 0 and 1 of counter 2^32, which
  // OpenSSL writes as counter 0 with 1 carried into the nonce's first word.
  const ByteVector tail_iv = test::hex("000000000100000000000000000000aa");
  const ByteVector tail = s.encrypt(tail_iv, std::span(pt).subspan(128));
  EXPECT_EQ(tail, ByteVector(expected.begin() + 128, expected.end()));
}

// Every driver that claims ChaCha20 gives soft's (OpenSSL's) bytes over the
// wrap of the 32-bit counter, in one request and streamed: the kernel's
// chacha20 wraps the counter, so the session cuts the request there.
TEST(ChaCha20Streaming, EveryDriverAgreesAcrossTheCounterWrap) {
  const ByteVector key = random_bytes(32), pt = random_bytes(1000);
  const ByteVector iv = test::hex("f8ffffff0700000000000000000000bb");
  const ByteVector expected = CipherSession("chacha20", key, {.driver = "soft"}).encrypt(iv, pt);
  for (const DriverInfo& d : Framework::global().drivers()) {
    for (std::size_t i = 0; i < d.capabilities.size() && i < d.self_tests.size(); ++i) {
      if (d.capabilities[i].algorithm != AlgorithmId::chacha20 || !d.self_tests[i].tested ||
          !d.self_tests[i].passed)
        continue;
      CipherSession s("chacha20", key, {.driver = d.name});
      EXPECT_EQ(s.encrypt(iv, pt), expected) << d.name;
      ByteVector out(pt.size());
      s.begin(Direction::encrypt, iv);
      for (std::size_t at = 0; at < pt.size(); at += 300) {
        const std::size_t n = std::min<std::size_t>(300, pt.size() - at);
        s.update(std::span(pt).subspan(at, n), std::span(out).subspan(at, n));
      }
      EXPECT_EQ(out, expected) << d.name << " streamed";
      EXPECT_EQ(s.last_driver(), d.name);
    }
  }
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
                                         "ripemd160", "hmac-md5", "hmac-sha1", "hmac-sha256",
                                         "hmac-sha512", "hmac-ripemd160"));

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
