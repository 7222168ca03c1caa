// The batch API checks a batch's requests in one pass that judges the
// first request's shape (operation and the lengths of its IV, tag, AAD and
// a digest's output) once and, for every request of that shape, only its
// own lengths. These tests hold it to the verdict each request gets alone:
// random batches of requests that share the first's shape, or differ from
// it in one field, valid or not, each status and each output compared with
// the same request run as a batch of one.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "batch_cases.hpp"
#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel::test {
namespace {

// `c` given the shape of `first`: its operation and its IV, tag and AAD
// lengths (a digest's output length too), with its own input.
void take_shape(Case& c, const Case& first) {
  c.op = first.op;
  c.iv.resize(first.iv.size());
  c.tag.resize(first.tag.size());
  c.aad.resize(first.aad.size());
  c.out.resize(first.out.size() == first.in.size() ? c.in.size() : first.out.size());
}

// One field of `c` made different, and perhaps wrong.
void change_one_field(const Algorithm& a, Case& c, std::mt19937& rng) {
  switch (pick(rng, 0, 7)) {
    case 0:
      c.iv.resize(pick(rng, 0, 20));
      break;
    case 1:
      c.tag.resize(pick(rng, 0, 20));
      break;
    case 2:
      c.aad.resize(pick(rng, 0, 40));
      break;
    case 3:
      c.op = static_cast<Operation>(pick(rng, 0, 4));
      break;
    case 4:
      c.out.resize(c.out.empty() ? 0 : c.out.size() - 1);  // short of its input or digest
      break;
    case 5:
      c.in.resize(c.in.size() + pick(rng, 1, a.input_multiple));  // perhaps no whole block
      c.out.resize(a.kind == AlgorithmKind::digest || a.kind == AlgorithmKind::mac ? c.out.size()
                                                                                   : c.in.size());
      break;
    case 6:
      c.out.resize(c.out.size() + pick(rng, 1, 8));  // longer than needed
      break;
    default:
      c.in.clear();
      if (a.kind == AlgorithmKind::cipher || a.kind == AlgorithmKind::aead) c.out.clear();
      break;
  }
}

void check_algorithm(const std::string& name) {
  const Algorithm& a = *find_algorithm(name);
  std::mt19937 rng(0xbadc0de);
  for (int round = 0; round < 150; ++round) {
    const ByteVector key = random_key(a, rng);
    AnySession session(a, key, "soft");
    const auto op = a.kind == AlgorithmKind::digest || a.kind == AlgorithmKind::mac
                        ? Operation::digest
                        : Operation::encrypt;
    std::vector<Case> cases;
    const std::size_t n = pick(rng, 1, 40);
    for (std::size_t i = 0; i < n; ++i) {
      Case c = random_case(a, rng, op);
      c.in.resize(std::min<std::size_t>(c.in.size(), 300));
      if (a.kind != AlgorithmKind::digest && a.kind != AlgorithmKind::mac)
        c.out.resize(c.in.size());
      if (i != 0) take_shape(c, cases.front());
      if (pick(rng, 0, 3) == 0) change_one_field(a, c, rng);
      cases.push_back(std::move(c));
    }
    std::vector<Case> alone = cases;
    const std::vector<Request> together = run(session.get(), cases);
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<Case> one{alone[i]};
      const Request single = run(session.get(), one)[0];
      ASSERT_EQ(together[i].status, single.status)
          << name << ", round " << round << ", request " << i << " of " << n;
      if (single.status == ErrorCode::ok) {
        EXPECT_EQ(cases[i].out, one[0].out) << name << ", round " << round << ", request " << i;
        EXPECT_EQ(cases[i].tag, one[0].tag) << name << ", round " << round << ", request " << i;
      }
    }
  }
}

bool offers(const std::string& driver, AlgorithmId id) {
  if (driver.empty()) return true;
  for (const DriverInfo& d : Framework::global().drivers())
    if (d.name == driver)
      for (const Capability& c : d.capabilities)
        if (c.algorithm == id) return true;
  return false;
}

// An output that overlaps its input, ahead of it or behind it, in a batch
// and in a one-shot call: the cipher of the input as it was, on every
// driver (EVP, and libipsec-mb for CBC, would read bytes they had already
// written when the output begins after the input).
TEST(BatchChecks, AnOutputOverlappingItsInputGetsTheCipherOfTheInput) {
  std::mt19937 rng(7);
  for (const std::string driver : {"", "soft", "mb"}) {
    for (const char* name : {"aes-128-cbc", "aes-128-ctr", "aes-128-gcm", "chacha20-poly1305"}) {
      const Algorithm& a = *find_algorithm(name);
      if (!offers(driver, a.id)) continue;
      const ByteVector key = random_key(a, rng);
      AnySession session(a, key, driver);
      AnySession soft(a, key, "soft");
      for (const std::ptrdiff_t shift : {1, 5, 16, 255, 0, -1, -16}) {
        constexpr std::size_t kLength = 256, kMargin = 300;
        const ByteVector original = bytes_from(rng, kLength + 2 * kMargin);
        const ByteVector iv = bytes_from(rng, a.kind == AlgorithmKind::aead ? 12 : a.iv_size);
        // The reference: the input copied aside, out of place.
        const ByteVector in_copy(original.begin() + kMargin, original.begin() + kMargin + kLength);
        ByteVector expected(kLength), expected_tag(a.kind == AlgorithmKind::aead ? 16 : 0);
        std::vector<Request> reference{{.op = Operation::encrypt,
                                        .iv = iv,
                                        .in = in_copy,
                                        .out = expected,
                                        .tag = expected_tag}};
        ASSERT_EQ(soft.get().process(reference), 1u);
        for (const bool one_shot : {false, true}) {
          ByteVector buffer = original, tag(expected_tag.size());
          const std::span<const std::uint8_t> in(buffer.data() + kMargin, kLength);
          const std::span<std::uint8_t> out(buffer.data() + kMargin + shift, kLength);
          if (!one_shot) {
            std::vector<Request> batch{
                {.op = Operation::encrypt, .iv = iv, .in = in, .out = out, .tag = tag}};
            EXPECT_EQ(session.get().process(batch), 1u);
          } else if (a.kind == AlgorithmKind::aead) {
            static_cast<AeadSession&>(session.get()).seal(iv, {}, in, out, tag);
          } else {
            static_cast<CipherSession&>(session.get()).encrypt(iv, in, out);
          }
          EXPECT_EQ(ByteVector(out.begin(), out.end()), expected)
              << name << " on " << (driver.empty() ? "default" : driver) << ", output at " << shift
              << (one_shot ? ", one-shot" : ", batch");
          EXPECT_EQ(tag, expected_tag) << name << ", output at " << shift;
        }
      }
    }
  }
}

TEST(BatchChecks, EachRequestGetsTheVerdictItGetsAloneCipher) {
  check_algorithm("aes-128-cbc");
}
TEST(BatchChecks, EachRequestGetsTheVerdictItGetsAloneAead) {
  check_algorithm("aes-128-gcm");
}
TEST(BatchChecks, EachRequestGetsTheVerdictItGetsAloneDigest) {
  check_algorithm("sha256");
}
TEST(BatchChecks, EachRequestGetsTheVerdictItGetsAloneMac) {
  check_algorithm("hmac-sha256");
}

}  // namespace
}  // namespace cryptoaccel::test
