// Random batches of one algorithm's requests, run through sessions pinned
// to a driver and compared with soft request by request: the tests of the
// drivers that take batches (mb, dpdk) share them.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cryptoaccel/cryptoaccel.hpp"
#include "test_util.hpp"

namespace cryptoaccel::test {

inline ByteVector bytes_from(std::mt19937& rng, std::size_t n) {
  ByteVector out(n);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

inline std::size_t pick(std::mt19937& rng, std::size_t low, std::size_t high) {
  return std::uniform_int_distribution<std::size_t>(low, high)(rng);
}

// One request and the buffers it points to.
struct Case {
  Operation op = Operation::encrypt;
  ByteVector iv, aad, in, out, tag;
  Request request() { return {.op = op, .iv = iv, .aad = aad, .in = in, .out = out, .tag = tag}; }
};

// A random request of `a`: a length from 0 to a few KiB (whole blocks where
// the mode needs them), its own IV, and for GCM any nonce length, a tag
// length from 4 to 16 and some AAD; where `claimed` is given, only the
// nonce and tag lengths that capability claims.
inline Case random_case(const Algorithm& a, std::mt19937& rng, Operation op,
                        const Capability* claimed = nullptr) {
  Case c;
  c.op = op;
  const std::size_t length = pick(rng, 0, 3000);
  switch (a.kind) {
    case AlgorithmKind::cipher:
      c.in = bytes_from(rng, length / a.input_multiple * a.input_multiple);
      c.iv = bytes_from(rng, a.iv_size);
      c.out.resize(c.in.size());
      break;
    case AlgorithmKind::aead:
      c.in = bytes_from(rng, length);
      if (claimed != nullptr)
        c.iv = bytes_from(rng, claimed->iv_sizes.contains(12)
                                   ? 12
                                   : pick(rng, claimed->iv_sizes.min, claimed->iv_sizes.max));
      else
        c.iv = bytes_from(rng, pick(rng, 0, 3) == 0 ? pick(rng, 1, 64) : 12);
      c.aad = bytes_from(rng, pick(rng, 0, 2) == 0 ? 0 : pick(rng, 1, 100));
      {
        const SizeRange tags = claimed != nullptr ? claimed->tag_sizes : a.tag_sizes;
        c.tag.resize(pick(rng, tags.min, tags.max));
      }
      c.out.resize(c.in.size());
      break;
    case AlgorithmKind::digest:
    case AlgorithmKind::mac:
      c.in = bytes_from(rng, length);
      c.out.resize(a.output_size);
      break;
    case AlgorithmKind::public_key:
      ADD_FAILURE() << "no RSA in batch cases";
      break;
  }
  return c;
}

// A session of `a` pinned to `driver`, for the batch API.
class AnySession {
 public:
  AnySession(const Algorithm& a, Bytes key, const std::string& driver) {
    const SessionOptions o{.driver = driver};
    switch (a.kind) {
      case AlgorithmKind::cipher:
        cipher_.emplace(a.name, key, o);
        break;
      case AlgorithmKind::aead:
        aead_.emplace(a.name, key, o);
        break;
      case AlgorithmKind::digest:
        digest_.emplace(a.name, o);
        break;
      case AlgorithmKind::mac:
        mac_.emplace(a.name, key, o);
        break;
      case AlgorithmKind::public_key:
        ADD_FAILURE() << "no RSA in batch cases";
        break;
    }
  }
  Session& get() {
    if (cipher_) return *cipher_;
    if (aead_) return *aead_;
    if (digest_) return *digest_;
    return *mac_;
  }

 private:
  std::optional<CipherSession> cipher_;
  std::optional<AeadSession> aead_;
  std::optional<DigestSession> digest_;
  std::optional<MacSession> mac_;
};

inline ByteVector random_key(const Algorithm& a, std::mt19937& rng) {
  if (a.kind == AlgorithmKind::digest) return {};
  // HMAC: short keys, block-sized ones and longer ones, which are hashed.
  if (a.kind == AlgorithmKind::mac) return bytes_from(rng, pick(rng, 1, 2 * a.block_size + 10));
  return bytes_from(rng, a.key_size.min);
}

// Runs `cases` through `session` as one batch; returns the requests.
inline std::vector<Request> run(Session& session, std::vector<Case>& cases) {
  std::vector<Request> batch;
  for (Case& c : cases) batch.push_back(c.request());
  session.process(batch);
  return batch;
}

// Seals half the AEAD cases with soft first so that their opens are
// authentic, then forges a third of those by flipping a tag bit.
inline void make_opens(const Algorithm& a, Bytes key, std::vector<Case>& cases,
                       std::mt19937& rng) {
  AnySession soft(a, key, "soft");
  for (Case& c : cases) {
    if (c.op != Operation::decrypt) continue;
    Case sealed = c;
    sealed.op = Operation::encrypt;
    std::vector<Case> one{sealed};
    const auto done = run(soft.get(), one);
    ASSERT_EQ(done[0].status, ErrorCode::ok);
    c.in = one[0].out;
    c.tag = one[0].tag;
    if (pick(rng, 0, 2) == 0) c.tag[0] ^= 0x01;
  }
}

// `driver`'s requests and cases against soft's, one by one.
inline void expect_same(const std::vector<Request>& driver, const std::vector<Request>& soft,
                        const std::vector<Case>& driver_cases, const std::vector<Case>& soft_cases,
                        const std::string& what) {
  ASSERT_EQ(driver.size(), soft.size());
  for (std::size_t i = 0; i < driver.size(); ++i) {
    SCOPED_TRACE(what + ", request " + std::to_string(i) + " of " + std::to_string(driver.size()) +
                 ", " + std::to_string(driver_cases[i].in.size()) + " bytes");
    EXPECT_EQ(driver[i].status, soft[i].status);
    EXPECT_EQ(driver_cases[i].out, soft_cases[i].out);
    if (driver_cases[i].op == Operation::encrypt) {
      EXPECT_EQ(driver_cases[i].tag, soft_cases[i].tag);
    }
  }
}

// Runs `cases` through `driver` and through `soft`, for a test on many
// threads: how many came back with another status or other bytes.
inline std::size_t count_differences(Session& driver, Session& soft, std::vector<Case>& cases) {
  std::vector<Case> soft_cases = cases;
  const auto by_driver = run(driver, cases);
  const auto by_soft = run(soft, soft_cases);
  std::size_t differences = 0;
  for (std::size_t i = 0; i < cases.size(); ++i)
    differences += by_driver[i].status != by_soft[i].status ||
                   cases[i].out != soft_cases[i].out || cases[i].tag != soft_cases[i].tag;
  return differences;
}

}  // namespace cryptoaccel::test
