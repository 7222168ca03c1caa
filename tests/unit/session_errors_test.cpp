// Bad input is refused with the right error and a message naming the
// problem; a failed AEAD open releases no plaintext.
#include <gtest/gtest.h>

#include <string>

#include "cryptoaccel/cryptoaccel.hpp"
#include "test_util.hpp"

namespace cryptoaccel {
namespace {

using test::ByteVector;
using test::hex;
using test::random_bytes;

template <typename E, typename F>
std::string expect_throw(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception: " << e.what();
    return {};
  }
  ADD_FAILURE() << "no exception";
  return {};
}

TEST(SessionErrors, WrongKeyLength) {
  const std::string what =
      expect_throw<InvalidKeyLength>([] { CipherSession("aes-128-cbc", random_bytes(15)); });
  EXPECT_NE(what.find("16"), std::string::npos) << what;
  EXPECT_NE(what.find("15"), std::string::npos) << what;
  expect_throw<InvalidKeyLength>([] { AeadSession("aes-256-gcm", random_bytes(16)); });
  expect_throw<InvalidKeyLength>([] { CipherSession("des-ede3-cbc", random_bytes(16)); });
  expect_throw<InvalidKeyLength>([] { AeadSession("chacha20-poly1305", random_bytes(31)); });
}

TEST(SessionErrors, WrongIvLength) {
  CipherSession cbc("aes-128-cbc", random_bytes(16));
  const ByteVector in(32);
  expect_throw<InvalidIvLength>([&] { cbc.encrypt(random_bytes(12), in); });
  expect_throw<InvalidIvLength>([&] { cbc.begin(Direction::decrypt, random_bytes(17)); });
  CipherSession ecb("aes-128-ecb", random_bytes(16));
  expect_throw<InvalidIvLength>([&] { ecb.encrypt(random_bytes(16), in); });
  AeadSession gcm("aes-128-gcm", random_bytes(16));
  ByteVector out(32), tag(16);
  expect_throw<InvalidIvLength>([&] { gcm.seal({}, {}, in, out, tag); });
  AeadSession chacha("chacha20-poly1305", random_bytes(32));
  expect_throw<InvalidIvLength>([&] { chacha.seal(random_bytes(8), {}, in, out, tag); });
}

TEST(SessionErrors, BlockModesRefuseInputThatIsNotWholeBlocks) {
  for (const char* name : {"aes-128-ecb", "aes-256-cbc"}) {
    CipherSession s(name, random_bytes(find_algorithm(name)->key_size.min));
    const ByteVector iv(find_algorithm(name)->iv_size);
    const std::string what = expect_throw<InvalidLength>([&] { s.encrypt(iv, ByteVector(17)); });
    EXPECT_NE(what.find("17"), std::string::npos) << what;
    expect_throw<InvalidLength>([&] { s.decrypt(iv, ByteVector(15)); });
  }
  CipherSession des("des-ede3-cbc", random_bytes(24));
  expect_throw<InvalidLength>([&] { des.encrypt(ByteVector(8), ByteVector(12)); });
  // CTR takes any length.
  CipherSession ctr("aes-128-ctr", random_bytes(16));
  EXPECT_EQ(ctr.encrypt(ByteVector(16), ByteVector(17)).size(), 17u);
}

TEST(SessionErrors, XtsRefusesEqualKeyHalvesAndShortDataUnits) {
  const ByteVector half = random_bytes(16);
  ByteVector key = half;
  key.insert(key.end(), half.begin(), half.end());
  expect_throw<InvalidKey>([&] { CipherSession("aes-128-xts", key); });
  CipherSession xts("aes-128-xts", random_bytes(32));
  expect_throw<InvalidLength>([&] { xts.encrypt(ByteVector(16), ByteVector(15)); });
  expect_throw<Unsupported>([&] { xts.begin(Direction::encrypt, ByteVector(16)); });
  EXPECT_EQ(xts.encrypt(ByteVector(16), ByteVector(17)).size(), 17u);  // ciphertext stealing
}

TEST(SessionErrors, OutputTooSmall) {
  CipherSession s("aes-128-ctr", random_bytes(16));
  ByteVector out(10);
  expect_throw<InvalidLength>([&] { s.encrypt(ByteVector(16), ByteVector(11), out); });
  DigestSession d("sha256");
  ByteVector md(31);
  expect_throw<InvalidLength>([&] { d.digest(ByteVector(3), md); });
}

class AeadTamper : public testing::TestWithParam<const char*> {};

TEST_P(AeadTamper, FlippedTagOrAadBitIsRejectedAndReleasesNoPlaintext) {
  const Algorithm& a = *find_algorithm(GetParam());
  AeadSession s(a.name, random_bytes(a.key_size.min));
  const ByteVector iv = random_bytes(a.iv_size), aad = random_bytes(20), pt = random_bytes(64);
  ByteVector ct(pt.size()), tag(16);
  s.seal(iv, aad, pt, ct, tag);

  ByteVector out(pt.size());
  s.open(iv, aad, ct, tag, out);
  EXPECT_EQ(out, pt);

  for (int which = 0; which < 3; ++which) {
    ByteVector bad_tag = tag, bad_aad = aad, bad_ct = ct;
    if (which == 0) bad_tag[5] ^= 0x10;
    if (which == 1) bad_aad[19] ^= 0x01;
    if (which == 2) bad_ct[0] ^= 0x80;
    out.assign(pt.size(), 0xAA);
    const std::string what =
        expect_throw<AuthenticationFailed>([&] { s.open(iv, bad_aad, bad_ct, bad_tag, out); });
    EXPECT_NE(what.find("authentication failed"), std::string::npos);
    EXPECT_TRUE(test::all_zero(out)) << "plaintext released after a failed open";
  }
  // In place: the buffer holds no plaintext afterwards either.
  ByteVector buffer = ct, bad_tag = tag;
  bad_tag[0] ^= 1;
  expect_throw<AuthenticationFailed>([&] { s.open(iv, aad, buffer, bad_tag, buffer); });
  EXPECT_TRUE(test::all_zero(buffer));
}

INSTANTIATE_TEST_SUITE_P(Aeads, AeadTamper,
                         testing::Values("aes-128-gcm", "aes-192-gcm", "aes-256-gcm",
                                         "chacha20-poly1305"));

TEST(SessionErrors, GcmTagLengthsFourToSixteen) {
  AeadSession s("aes-128-gcm", random_bytes(16));
  const ByteVector iv = random_bytes(12), pt = random_bytes(33);
  ByteVector ct(pt.size()), out(pt.size());
  for (std::size_t len : {4, 8, 12, 13, 16}) {
    ByteVector tag(len);
    s.seal(iv, {}, pt, ct, tag);
    s.open(iv, {}, ct, tag, out);
    EXPECT_EQ(out, pt) << len;
  }
  for (std::size_t len : {0, 3, 17}) {
    ByteVector tag(len);
    expect_throw<InvalidTagLength>([&] { s.seal(iv, {}, pt, ct, tag); });
  }
  AeadSession chacha("chacha20-poly1305", random_bytes(32));
  ByteVector short_tag(12);
  expect_throw<InvalidTagLength>([&] { chacha.seal(iv, {}, pt, ct, short_tag); });
}

TEST(SessionErrors, UnknownAlgorithmAndWrongKind) {
  expect_throw<NotFound>([] { CipherSession("aes-100-cbc", random_bytes(16)); });
  expect_throw<NotFound>([] { DigestSession("sha3-999"); });
  const std::string what =
      expect_throw<InvalidArgument>([] { CipherSession("sha256", random_bytes(16)); });
  EXPECT_NE(what.find("digest"), std::string::npos) << what;
  expect_throw<InvalidArgument>([] { CipherSession("aes-128-gcm", random_bytes(16)); });
  expect_throw<InvalidArgument>([] { DigestSession("hmac-sha256"); });
}

TEST(SessionErrors, DriverNotFound) {
  const std::string what = expect_throw<NotFound>(
      [] { CipherSession("aes-128-cbc", random_bytes(16), {.driver = "quantum"}); });
  EXPECT_NE(what.find("quantum"), std::string::npos) << what;
}

TEST(SessionErrors, ErrorCodesHaveNames) {
  EXPECT_EQ(to_string(ErrorCode::authentication_failed), "authentication failed");
  EXPECT_EQ(to_string(ErrorCode::invalid_key_length), "invalid key length");
  try {
    throw_error(ErrorCode::unsupported, "x");
  } catch (const Unsupported& e) {
    EXPECT_EQ(e.code(), ErrorCode::unsupported);
  }
}

}  // namespace
}  // namespace cryptoaccel
