// Batches through AF_ALG, in the guest: several requests in flight at once
// (one operation socket each, read back through AIO) and zero-copy input
// (vmsplice + splice) give exactly what the software driver gives, whatever
// the mix of sizes, directions and tag lengths, and a bad request in the
// middle of a batch fails alone.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/framework_impl.hpp"
#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel {
namespace {

using ByteVector = std::vector<std::uint8_t>;

void fill(std::span<std::uint8_t> out, std::uint8_t seed) {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(seed + 7 * i);
}

ByteVector bytes(std::size_t n, std::uint8_t seed) {
  ByteVector out(n);
  fill(out, seed);
  return out;
}

std::unique_ptr<DriverSession> open(const std::string& driver, const Algorithm& a,
                                    const ByteVector& key) {
  detail::RegisteredDriver* d = Framework::global().impl().registry.find(driver);
  if (d == nullptr) throw NotFound("no driver " + driver + " in this guest");
  return d->driver->open_session(a, key);
}

// Page-aligned memory, as zero copy needs.
struct AlignedBuffer {
  explicit AlignedBuffer(std::size_t n)
      : data(static_cast<std::uint8_t*>(std::aligned_alloc(4096, (n + 4095) / 4096 * 4096))),
        size(n) {}
  ~AlignedBuffer() { std::free(data); }
  std::span<std::uint8_t> span() { return {data, size}; }
  std::uint8_t* data;
  std::size_t size;
};

class AfalgBatch : public ::testing::TestWithParam<const char*> {};

// More requests than a session keeps in flight, of every size class, both
// directions: each matches soft.
TEST_P(AfalgBatch, CbcBatchMatchesSoft) {
  const Algorithm& cbc = *find_algorithm("aes-128-cbc");
  const ByteVector key = bytes(16, 1);
  auto session = open(GetParam(), cbc, key);
  CipherSession soft("aes-128-cbc", key, {.driver = "soft"});
  const std::size_t sizes[] = {16,   64,   256, 1024,  4096, 8192, 16384, 65536, 32,   48,
                               8192, 4096, 16,  65536, 1024, 512,  80,    160,   16384};
  std::vector<ByteVector> ivs, ins, outs;
  std::vector<Request> batch;
  for (std::size_t i = 0; i < std::size(sizes); ++i) {
    ivs.push_back(bytes(16, static_cast<std::uint8_t>(i)));
    ins.push_back(bytes(sizes[i], static_cast<std::uint8_t>(100 + i)));
    outs.emplace_back(sizes[i]);
  }
  for (std::size_t i = 0; i < std::size(sizes); ++i)
    batch.push_back({.op = i % 3 == 2 ? Operation::decrypt : Operation::encrypt,
                     .iv = ivs[i],
                     .in = ins[i],
                     .out = outs[i]});
  ASSERT_EQ(session->process(batch), batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    ASSERT_EQ(batch[i].status, ErrorCode::ok) << i << ": " << to_string(batch[i].status);
    const ByteVector expected = batch[i].op == Operation::encrypt ? soft.encrypt(ivs[i], ins[i])
                                                                  : soft.decrypt(ivs[i], ins[i]);
    EXPECT_EQ(outs[i], expected) << "request " << i << " of " << sizes[i] << " bytes";
  }
}

// A request the kernel refuses, among others in flight, fails alone; the
// session then goes on.
TEST_P(AfalgBatch, BadRequestAmongManyFailsAlone) {
  const Algorithm& cbc = *find_algorithm("aes-128-cbc");
  const ByteVector key = bytes(16, 1), iv = bytes(16, 2);
  auto session = open(GetParam(), cbc, key);
  CipherSession soft("aes-128-cbc", key, {.driver = "soft"});
  std::vector<ByteVector> ins, outs;
  for (std::size_t i = 0; i < 12; ++i) {
    ins.push_back(bytes(i == 5 ? 17 : 32 * (i + 1), static_cast<std::uint8_t>(i)));
    outs.emplace_back(ins.back().size());
  }
  std::vector<Request> batch;
  for (std::size_t i = 0; i < ins.size(); ++i)
    batch.push_back({.op = Operation::encrypt, .iv = iv, .in = ins[i], .out = outs[i]});
  ASSERT_EQ(session->process(batch), batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (i == 5) {
      EXPECT_EQ(batch[i].status, ErrorCode::invalid_length) << to_string(batch[i].status);
      continue;
    }
    ASSERT_EQ(batch[i].status, ErrorCode::ok) << i << ": " << to_string(batch[i].status);
    EXPECT_EQ(outs[i], soft.encrypt(iv, ins[i])) << i;
  }
  Request again{.op = Operation::encrypt, .iv = iv, .in = ins[0], .out = outs[0]};
  ASSERT_EQ(session->process({&again, 1}), 1u);
  EXPECT_EQ(again.status, ErrorCode::ok);
  EXPECT_EQ(outs[0], soft.encrypt(iv, ins[0]));
}

// Page-aligned inputs of 16 KiB to 64 KiB with a separate output go by
// splice; unaligned or in-place ones by copy. All must match soft, alone and
// in a batch.
TEST_P(AfalgBatch, ZeroCopyInputMatchesSoft) {
  const Algorithm& cbc = *find_algorithm("aes-128-cbc");
  const ByteVector key = bytes(16, 3), iv = bytes(16, 4);
  auto session = open(GetParam(), cbc, key);
  CipherSession soft("aes-128-cbc", key, {.driver = "soft"});
  for (const std::size_t size : {16384u, 20000u, 32768u, 65536u}) {
    const std::size_t n = size / 16 * 16;
    AlignedBuffer in(n), out(n), in2(n), out2(n);
    fill(in.span(), 9);
    fill(in2.span(), 10);
    for (const Operation op : {Operation::encrypt, Operation::decrypt}) {
      Request batch[2] = {{.op = op, .iv = iv, .in = in.span(), .out = out.span()},
                          {.op = op, .iv = iv, .in = in2.span(), .out = out2.span()}};
      ASSERT_EQ(session->process({batch, 1}), 1u);  // alone
      ASSERT_EQ(batch[0].status, ErrorCode::ok);
      const ByteVector in_copy(in.span().begin(), in.span().end());
      const ByteVector in2_copy(in2.span().begin(), in2.span().end());
      const ByteVector expected =
          op == Operation::encrypt ? soft.encrypt(iv, in_copy) : soft.decrypt(iv, in_copy);
      const ByteVector expected2 =
          op == Operation::encrypt ? soft.encrypt(iv, in2_copy) : soft.decrypt(iv, in2_copy);
      EXPECT_EQ(ByteVector(out.span().begin(), out.span().end()), expected) << n;
      std::fill(out.span().begin(), out.span().end(), 0);
      ASSERT_EQ(session->process(batch), 2u);  // in flight together
      ASSERT_EQ(batch[0].status, ErrorCode::ok);
      ASSERT_EQ(batch[1].status, ErrorCode::ok);
      EXPECT_EQ(ByteVector(out.span().begin(), out.span().end()), expected) << n;
      EXPECT_EQ(ByteVector(out2.span().begin(), out2.span().end()), expected2) << n;
      // In place on the same aligned pages: copied, not spliced.
      Request in_place{.op = op, .iv = iv, .in = in.span(), .out = in.span()};
      ASSERT_EQ(session->process({&in_place, 1}), 1u);
      ASSERT_EQ(in_place.status, ErrorCode::ok);
      EXPECT_EQ(ByteVector(in.span().begin(), in.span().end()), expected) << n;
      fill(in.span(), 9);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Drivers, AfalgBatch,
                         ::testing::Values("afalg:virtio_crypto_aes_cbc", "afalg:cbc(aes-generic)"),
                         [](const auto& param_info) {
                           return std::string(param_info.param).starts_with("afalg:virtio")
                                      ? std::string("virtio")
                                      : std::string("generic");
                         });

// GCM: a batch mixing tag lengths (the transform's tag length changes
// between them), AAD sizes and one forged tag: the forged one fails alone
// and releases nothing.
TEST(AfalgBatchAead, MixedTagsAndOneForgery) {
  for (const DriverInfo& d : Framework::global().drivers()) {
    if (!d.name.starts_with("afalg:")) continue;
    bool gcm = false;
    for (const Capability& c : d.capabilities) gcm |= c.algorithm == AlgorithmId::aes_128_gcm;
    if (!gcm) continue;
    SCOPED_TRACE(d.name);
    const Algorithm& a = *find_algorithm("aes-128-gcm");
    const ByteVector key = bytes(16, 1);
    auto session = open(d.name, a, key);
    AeadSession soft("aes-128-gcm", key, {.driver = "soft"});
    const std::size_t tags[] = {16, 16, 12, 16, 8, 16, 16, 16, 16, 16, 4, 16};
    const std::size_t forged = 6;
    std::vector<ByteVector> ivs, aads, pts, cts, tag_bytes, outs;
    std::vector<Request> opens;
    for (std::size_t i = 0; i < std::size(tags); ++i) {
      ivs.push_back(bytes(12, static_cast<std::uint8_t>(i)));
      aads.push_back(bytes(i * 3, static_cast<std::uint8_t>(50 + i)));
      pts.push_back(bytes(16 * i + i, static_cast<std::uint8_t>(90 + i)));
      cts.emplace_back(pts.back().size());
      tag_bytes.emplace_back(tags[i]);
      soft.seal(ivs[i], aads[i], pts[i], cts[i], tag_bytes[i]);
      outs.emplace_back(pts.back().size(), 0xaa);
    }
    tag_bytes[forged][0] ^= 0x80;
    for (std::size_t i = 0; i < std::size(tags); ++i)
      opens.push_back({.op = Operation::decrypt,
                       .iv = ivs[i],
                       .aad = aads[i],
                       .in = cts[i],
                       .out = outs[i],
                       .tag = tag_bytes[i]});
    ASSERT_EQ(session->process(opens), opens.size());
    for (std::size_t i = 0; i < opens.size(); ++i) {
      if (i == forged) {
        EXPECT_EQ(opens[i].status, ErrorCode::authentication_failed);
        continue;
      }
      ASSERT_EQ(opens[i].status, ErrorCode::ok) << i << ": " << to_string(opens[i].status);
      EXPECT_EQ(outs[i], pts[i]) << i;
    }
    // Seals in a batch give soft's ciphertext and tags.
    std::vector<ByteVector> sealed, sealed_tags;
    std::vector<Request> seals;
    for (std::size_t i = 0; i < std::size(tags); ++i) {
      sealed.emplace_back(pts[i].size());
      sealed_tags.emplace_back(tags[i]);
    }
    for (std::size_t i = 0; i < std::size(tags); ++i)
      seals.push_back({.op = Operation::encrypt,
                       .iv = ivs[i],
                       .aad = aads[i],
                       .in = pts[i],
                       .out = sealed[i],
                       .tag = sealed_tags[i]});
    ASSERT_EQ(session->process(seals), seals.size());
    tag_bytes[forged][0] ^= 0x80;
    for (std::size_t i = 0; i < seals.size(); ++i) {
      ASSERT_EQ(seals[i].status, ErrorCode::ok) << i;
      EXPECT_EQ(sealed[i], cts[i]) << i;
      EXPECT_EQ(sealed_tags[i], tag_bytes[i]) << i;
    }
  }
}

}  // namespace
}  // namespace cryptoaccel
