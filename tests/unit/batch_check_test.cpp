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
      c.out.resize(a.kind == AlgorithmKind::digest || a.kind == AlgorithmKind::mac
                       ? c.out.size()
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

TEST(BatchChecks, EachRequestGetsTheVerdictItGetsAloneCipher) { check_algorithm("aes-128-cbc"); }
TEST(BatchChecks, EachRequestGetsTheVerdictItGetsAloneAead) { check_algorithm("aes-128-gcm"); }
TEST(BatchChecks, EachRequestGetsTheVerdictItGetsAloneDigest) { check_algorithm("sha256"); }
TEST(BatchChecks, EachRequestGetsTheVerdictItGetsAloneMac) { check_algorithm("hmac-sha256"); }

}  // namespace
}  // namespace cryptoaccel::test
