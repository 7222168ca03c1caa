// The keyring drivers in the guest, from outside: where the keys go (a
// keyring of this process, not the user's session keyring), that they go
// when the session ends, and what a key revoked underneath a session does.
#include <gtest/gtest.h>
#include <linux/keyctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/best_kernel_rsa.hpp"
#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel {
namespace {

using ByteVector = std::vector<std::uint8_t>;

// The keyring instance that signs: the one over the kernel's best "rsa".
const std::string kRaw = test_support::best_kernel_rsa();
const std::string kDriver = "keyring:" + kRaw;
const bool kRawOnDevice = !kRaw.empty() && kRaw != "rsa-generic";

long keyctl(int op, unsigned long a2, unsigned long a3 = 0, unsigned long a4 = 0,
            unsigned long a5 = 0) {
  return syscall(__NR_keyctl, op, a2, a3, a4, a5);
}

// The serial of our "cryptoaccel" keyring, searched from `from`; -1 if none.
long our_keyring(long from) {
  return keyctl(KEYCTL_SEARCH, static_cast<unsigned long>(from),
                reinterpret_cast<unsigned long>("keyring"),
                reinterpret_cast<unsigned long>("cryptoaccel"), 0);
}

std::vector<std::int32_t> keys_in(long ring) {
  std::vector<std::int32_t> serials(256);
  const long n = keyctl(KEYCTL_READ, static_cast<unsigned long>(ring),
                        reinterpret_cast<unsigned long>(serials.data()),
                        serials.size() * sizeof(std::int32_t));
  if (n < 0) return {};
  serials.resize(std::min<std::size_t>(serials.size(), static_cast<std::size_t>(n) / 4));
  return serials;
}

std::string description_of(std::int32_t key) {
  char text[256] = {};
  const long n = keyctl(KEYCTL_DESCRIBE, static_cast<unsigned long>(key),
                        reinterpret_cast<unsigned long>(text), sizeof text - 1);
  return n > 0 ? std::string(text) : std::string();
}

const RsaKey& key() {
  static const RsaKey k = RsaKey::generate(2048);
  return k;
}

TEST(KeyringGuest, KeysLiveInAKeyringOfTheProcessAndGoWithTheSession) {
  long ring = -1;
  {
    RsaSession session(key(), {.driver = kDriver});
    const ByteVector digest(32, 7);
    const ByteVector signature = session.sign({}, digest);
    EXPECT_EQ(session.last_driver(), kDriver);
    ring = our_keyring(KEY_SPEC_PROCESS_KEYRING);
    ASSERT_GT(ring, 0) << "no cryptoaccel keyring under @p: " << std::strerror(errno);
    // The user's session keyring does not reach it.
    EXPECT_LT(our_keyring(KEY_SPEC_SESSION_KEYRING), 0);
    std::size_t ours = 0;
    for (const std::int32_t k : keys_in(ring))
      if (description_of(k).find("cryptoaccel:" + std::to_string(getpid()) + ":") !=
          std::string::npos)
        ++ours;
    EXPECT_GE(ours, 1u) << "the session's key is not in the keyring";
    EXPECT_TRUE(RsaSession(key().public_key(), {.driver = "soft"}).verify({}, digest, signature));
  }
  // Revoked and unlinked with the session (the probe's and self-tests' too).
  for (const std::int32_t k : keys_in(ring))
    EXPECT_EQ(description_of(k).find("cryptoaccel:" + std::to_string(getpid()) + ":"),
              std::string::npos)
        << "a key outlived its session: " << description_of(k);
}

TEST(KeyringGuest, AKeyRevokedUnderneathFailsItsRequestsClearly) {
  RsaSession session(key(), {.driver = kDriver});
  const ByteVector digest(32, 9);
  session.sign({}, digest);
  const long ring = our_keyring(KEY_SPEC_PROCESS_KEYRING);
  ASSERT_GT(ring, 0);
  for (const std::int32_t k : keys_in(ring)) keyctl(KEYCTL_REVOKE, static_cast<unsigned long>(k));
  try {
    session.sign({}, digest);
    FAIL() << "a revoked key still signs";
  } catch (const InvalidKey& e) {
    EXPECT_NE(std::string(e.what()).find("invalid key"), std::string::npos) << e.what();
  }
  const ByteVector ciphertext = RsaSession(key(), {.driver = "soft"}).encrypt({}, digest);
  EXPECT_THROW(session.decrypt({}, ciphertext), InvalidKey);
}

TEST(KeyringGuest, APublicKeyIsLeftToOtherDrivers) {
  RsaSession pinned(key().public_key(), {.driver = kDriver});
  EXPECT_THROW(pinned.verify({}, ByteVector(32, 1), ByteVector(256, 1)), Unsupported);
  RsaSession automatic(key().public_key());
  const ByteVector digest(32, 3);
  EXPECT_TRUE(automatic.verify({}, digest, RsaSession(key()).sign({}, digest)));
  EXPECT_EQ(automatic.last_driver(), "soft");
}

// Run with CRYPTOACCEL_POLICY=offload: the device first for what it takes.
// With the device's raw RSA as the kernel's best "rsa" (kRawOnDevice), its
// keyring instance is hardware too and takes every operation: decryption,
// OAEP and signatures go there. The device's PKCS#1 v1.5 instance encrypts
// only: its padding check is not constant time (keyring_session.cpp), so a
// PKCS#1 v1.5 decryption goes to the raw instance on the device, else soft.
TEST(KeyringGuest, TheDeviceDecryptsWhatItTakesAndSoftTheRest) {
  ASSERT_EQ(Framework::global().policy(), Policy::offload);
  ASSERT_FALSE(kRaw.empty()) << "/proc/crypto lists no rsa akcipher that passed its self-test";
  RsaSession session(key());
  const ByteVector message{'p', 'm', 's'};
  RsaSession soft(key(), {.driver = "soft"});
  EXPECT_EQ(session.decrypt({}, soft.encrypt({}, message)), message);
  EXPECT_EQ(session.last_driver(), kRawOnDevice ? kDriver : std::string("soft"));
  EXPECT_EQ(soft.decrypt({}, session.encrypt({}, message)), message);
  if (kRawOnDevice)
    EXPECT_TRUE(session.last_driver() == "keyring:virtio-pkcs1-rsa" ||
                session.last_driver() == kDriver)
        << session.last_driver();
  else
    EXPECT_EQ(session.last_driver(), "keyring:virtio-pkcs1-rsa");
  const RsaParameters oaep{.padding = RsaPadding::oaep};
  EXPECT_EQ(session.decrypt(oaep, soft.encrypt(oaep, message)), message);
  EXPECT_EQ(session.last_driver(), kRawOnDevice ? kDriver : std::string("soft"));
  session.sign({}, ByteVector(32, 1));
  EXPECT_EQ(session.last_driver(), kRawOnDevice ? kDriver : std::string("soft"));
}

// Pinned to the device's PKCS#1 v1.5 instance, a decryption is refused
// before the device sees it, whatever the ciphertext.
TEST(KeyringGuest, TheDevicesOwnPaddingNeverDecrypts) {
  RsaSession device(key(), {.driver = "keyring:virtio-pkcs1-rsa"});
  const ByteVector ciphertext =
      RsaSession(key(), {.driver = "soft"}).encrypt({}, ByteVector{'p', 'm', 's'});
  EXPECT_THROW(device.decrypt({}, ciphertext), Unsupported);
  EXPECT_THROW(device.decrypt({}, ByteVector(256, 7)), Unsupported);
}

// The device's PKCS#1 v1.5 encryption, many times: every ciphertext is a
// whole modulus and decrypts. On Debian's QEMU (nettle) the device cuts one
// in 128 to 255 (its first octet zero: the last is lost), which the driver
// must not pass on (keyring_session.cpp); 1000 encryptions meet about five.
TEST(KeyringGuest, EveryPkcs1EncryptionOnTheDeviceDecrypts) {
  RsaSession device(key(), {.driver = "keyring:virtio-pkcs1-rsa"});
  RsaSession soft(key(), {.driver = "soft"});
  const ByteVector message{'o', 'n', 'e', ' ', 'i', 'n', ' ', '2', '5', '6'};
  std::size_t leading_zero = 0, failed = 0;
  for (int i = 0; i < 1000; ++i) {
    const ByteVector ciphertext = device.encrypt({}, message);
    ASSERT_EQ(ciphertext.size(), 256u);
    if (ciphertext[0] == 0) ++leading_zero;
    try {
      if (soft.decrypt({}, ciphertext) != message) ++failed;
    } catch (const Error&) {
      ++failed;
    }
  }
  EXPECT_EQ(device.last_driver(), "keyring:virtio-pkcs1-rsa");
  EXPECT_EQ(failed, 0u) << "of 1000 ciphertexts (" << leading_zero
                        << " with a zero first octet) do not decrypt";
}

}  // namespace
}  // namespace cryptoaccel
