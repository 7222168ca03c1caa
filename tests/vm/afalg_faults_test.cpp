// Faults through AF_ALG, in the guest: a request the kernel rejects fails
// alone, with a clear status; the rest of its batch completes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/framework_impl.hpp"
#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel {
namespace {

using ByteVector = std::vector<std::uint8_t>;

ByteVector bytes(std::size_t n, std::uint8_t seed) {
  ByteVector out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(seed + 7 * i);
  return out;
}

Driver& driver_named(const std::string& name) {
  detail::RegisteredDriver* d = Framework::global().impl().registry.find(name);
  if (d == nullptr) throw NotFound("no driver " + name + " in this guest");
  return *d->driver;
}

TEST(AfalgFaults, OneBadRequestFailsAloneInItsBatch) {
  const Algorithm& cbc = *find_algorithm("aes-128-cbc");
  const ByteVector key = bytes(16, 1), iv = bytes(16, 2);
  auto session = driver_named("afalg:cbc(aes-generic)").open_session(cbc, key);
  const ByteVector good1 = bytes(32, 3), bad = bytes(17, 4), good2 = bytes(48, 5);
  ByteVector out1(32), out_bad(17), out2(48);
  Request batch[3] = {
      {.op = Operation::encrypt, .iv = iv, .in = good1, .out = out1},
      {.op = Operation::encrypt, .iv = iv, .in = bad, .out = out_bad},  // not whole blocks
      {.op = Operation::encrypt, .iv = iv, .in = good2, .out = out2},
  };
  EXPECT_EQ(session->process(batch), 3u);
  EXPECT_EQ(batch[0].status, ErrorCode::ok);
  EXPECT_EQ(batch[1].status, ErrorCode::invalid_length) << to_string(batch[1].status);
  EXPECT_EQ(batch[2].status, ErrorCode::ok);
  CipherSession soft("aes-128-cbc", key, {.driver = "soft"});
  EXPECT_EQ(out1, soft.encrypt(iv, good1));
  EXPECT_EQ(out2, soft.encrypt(iv, good2));
}

TEST(AfalgFaults, KeyTheKernelRefusesIsAClearError) {
  // 20 bytes is no AES key: the kernel refuses it at setsockopt(ALG_SET_KEY).
  const Algorithm& cbc = *find_algorithm("aes-128-cbc");
  try {
    driver_named("afalg:virtio_crypto_aes_cbc").open_session(cbc, bytes(20, 1));
    FAIL() << "the device accepted a 20-byte AES key";
  } catch (const InvalidKey& e) {
    EXPECT_NE(std::string(e.what()).find("refused the key"), std::string::npos) << e.what();
  }
}

TEST(AfalgFaults, TooLargeForTheDriverIsRefusedThenTheSessionGoesOn) {
  CipherSession s("aes-128-cbc", bytes(16, 1), {.driver = "afalg:virtio_crypto_aes_cbc"});
  const ByteVector iv = bytes(16, 2);
  try {
    s.encrypt(iv, bytes(128 * 1024, 3));
    FAIL() << "a 128 KiB request went through a 64 KiB path";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("131072-byte input"), std::string::npos) << e.what();
  }
  CipherSession soft("aes-128-cbc", bytes(16, 1), {.driver = "soft"});
  EXPECT_EQ(s.encrypt(iv, bytes(64, 4)), soft.encrypt(iv, bytes(64, 4)));
  // Unpinned, the same large request is served by another driver.
  CipherSession automatic("aes-128-cbc", bytes(16, 1), {});
  EXPECT_EQ(automatic.encrypt(iv, bytes(128 * 1024, 3)), soft.encrypt(iv, bytes(128 * 1024, 3)));
}

TEST(AfalgFaults, ForgedTagIsRejectedWithNoPlaintext) {
  for (const DriverInfo& d : Framework::global().drivers()) {
    if (!d.name.starts_with("afalg:")) continue;
    for (const Capability& c : d.capabilities) {
      if (c.algorithm != AlgorithmId::aes_128_gcm) continue;
      AeadSession s("aes-128-gcm", bytes(16, 1), {.driver = d.name});
      const ByteVector iv = bytes(12, 2), aad = bytes(5, 3), pt = bytes(40, 4);
      ByteVector ct(40), tag(16), out(40, 0xaa);
      s.seal(iv, aad, pt, ct, tag);
      tag[3] ^= 1;
      EXPECT_THROW(s.open(iv, aad, ct, tag, out), AuthenticationFailed) << d.name;
      EXPECT_EQ(out, ByteVector(40, 0)) << d.name;
      tag[3] ^= 1;
      s.open(iv, aad, ct, tag, out);
      EXPECT_EQ(out, pt) << d.name;
    }
  }
}

}  // namespace
}  // namespace cryptoaccel
