// PKCS#1 v1.5 decryption's time says nothing of the padding: on every
// driver that decrypts RSA-2048 here, valid ciphertexts and ciphertexts
// whose padding is wrong are timed alternately and their times compared
// with the Mann-Whitney U test. A driver that spends one more private-key
// operation, or any other work, on a bad padding shows as a shift of one
// distribution against the other (Bleichenbacher's oracle needs no more).
//
// The statistic: U of the valid times against the malformed ones, as z of
// its normal approximation (midranks for ties). The test fails when
// |z| > 3.29, a two-sided p below 0.001 that the two come from one
// distribution. Medians and z are printed for docs/drivers/keyring.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel {
namespace {

using ByteVector = std::vector<std::uint8_t>;

constexpr int kSamples = 40;          // of each kind, per driver
constexpr int kWarmUp = 4;            // decryptions not timed, per driver
constexpr double kZThreshold = 3.29;  // two-sided alpha = 0.001
constexpr std::size_t kBytes = 256;

const RsaKey& key() {
  static const RsaKey k = RsaKey::generate(2048);
  return k;
}

// Drivers that take RSA-2048 decryption and do cryptography (not `null`,
// whose self-tests prove nothing).
std::vector<std::string> decrypting_drivers() {
  std::vector<std::string> names;
  for (const DriverInfo& d : Framework::global().drivers())
    for (std::size_t i = 0; i < d.capabilities.size(); ++i) {
      const Capability& c = d.capabilities[i];
      if (c.algorithm == AlgorithmId::rsa2048 &&
          (c.operations & operation_bit(Operation::decrypt)) != 0 &&
          (i >= d.self_tests.size() || d.self_tests[i].tested))
        names.push_back(d.name);
    }
  return names;
}

// Encodings whose PKCS#1 v1.5 padding is wrong, each a way the decoder
// must refuse, raw-encrypted (m^e mod n).
ByteVector malformed(int kind, std::mt19937& random) {
  ByteVector em(kBytes);
  for (auto& b : em) b = static_cast<std::uint8_t>(1 + random() % 255);
  em[0] = 0;
  switch (kind % 5) {
    case 0:  // block type 1, not 2
      em[1] = 1;
      em[kBytes - 49] = 0;
      break;
    case 1:  // no zero octet after the padding string
      em[1] = 2;
      break;
    case 2:  // padding string shorter than 8 octets
      em[1] = 2;
      em[5] = 0;
      break;
    case 3:  // first octet not zero (still below the modulus: top bit clear)
      em[0] = 1;
      em[1] = 2;
      em[kBytes - 49] = 0;
      break;
    default:  // the 48-octet message of a TLS premaster, block type 0
      em[1] = 0;
      em[kBytes - 49] = 0;
      break;
  }
  return RsaSession(key().public_key(), {.driver = "soft"})
      .encrypt({.padding = RsaPadding::none}, em);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Comparison {
  double u = 0;
  double z = 0;
};

// Mann-Whitney U of `a` against `b`, midranks for ties, and z of its
// normal approximation with the tie correction.
Comparison mann_whitney(const std::vector<double>& a, const std::vector<double>& b) {
  struct Item {
    double value;
    bool first;
  };
  std::vector<Item> all;
  for (double x : a) all.push_back({x, true});
  for (double x : b) all.push_back({x, false});
  std::sort(all.begin(), all.end(), [](const Item& l, const Item& r) { return l.value < r.value; });
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size());
  const double n = n1 + n2;
  double rank_sum = 0, ties = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].value == all[i].value) ++j;
    const double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    const double t = static_cast<double>(j - i);
    ties += t * t * t - t;
    for (std::size_t k = i; k < j; ++k)
      if (all[k].first) rank_sum += midrank;
    i = j;
  }
  Comparison c;
  c.u = rank_sum - n1 * (n1 + 1) / 2;
  const double variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)));
  c.z = variance > 0 ? (c.u - n1 * n2 / 2) / std::sqrt(variance) : 0;
  return c;
}

TEST(KeyringTiming, ValidAndMalformedPkcs1CiphertextsTakeTheSameTime) {
  const std::vector<std::string> drivers = decrypting_drivers();
  ASSERT_FALSE(drivers.empty()) << "no driver decrypts rsa2048 here";
  std::mt19937 random(20261204);
  RsaSession soft(key(), {.driver = "soft"});
  std::vector<ByteVector> good, bad;
  const ByteVector message(48, 0x5a);  // a TLS premaster's length
  for (int i = 0; i < kSamples; ++i) {
    good.push_back(soft.encrypt({}, message));
    bad.push_back(malformed(i, random));
  }
  for (const std::string& driver : drivers) {
    SCOPED_TRACE(driver);
    RsaSession session(key(), {.driver = driver});
    ByteVector plaintext(kBytes);
    auto time_one = [&](const ByteVector& ciphertext, bool must_succeed) {
      // try_decrypt: a bad padding is an answer, not an exception, so that
      // what is compared is the decryption, not C++'s unwinding of the
      // library's frames (which decrypt()'s exception would add to the
      // malformed ones only: a shift of about 30 us in this guest).
      const auto start = std::chrono::steady_clock::now();
      const std::optional<std::size_t> length = session.try_decrypt({}, ciphertext, plaintext);
      const auto end = std::chrono::steady_clock::now();
      const bool ok = length && ByteVector(plaintext.begin(),
                                           plaintext.begin() + static_cast<long>(*length)) == message;
      // A driver with implicit rejection (OpenSSL 3.2+) answers a bad one
      // with a message of its own; it must never be the real one.
      EXPECT_EQ(ok, must_succeed) << (must_succeed ? "a valid ciphertext did not decrypt"
                                                    : "a malformed ciphertext gave the message");
      return std::chrono::duration<double, std::milli>(end - start).count();
    };
    for (int i = 0; i < kWarmUp; ++i) {
      time_one(good[static_cast<std::size_t>(i)], true);
      time_one(bad[static_cast<std::size_t>(i)], false);
    }
    // Alternately, in a random order within each pair, so that the guest's
    // and host's load drifts over both kinds alike.
    std::vector<double> valid, invalid;
    for (std::size_t i = 0; i < good.size(); ++i) {
      if (random() % 2 == 0) {
        valid.push_back(time_one(good[i], true));
        invalid.push_back(time_one(bad[i], false));
      } else {
        invalid.push_back(time_one(bad[i], false));
        valid.push_back(time_one(good[i], true));
      }
    }
    const Comparison c = mann_whitney(valid, invalid);
    std::printf(
        "timing: %s rsa2048 PKCS#1 v1.5 decryption, %d of each: median valid %.2f ms, "
        "malformed %.2f ms; Mann-Whitney U %.0f, z %.2f (fails at |z| > %.2f)\n",
        driver.c_str(), kSamples, median(valid), median(invalid), c.u, c.z, kZThreshold);
    std::fflush(stdout);
    EXPECT_LE(std::fabs(c.z), kZThreshold)
        << driver << ": malformed ciphertexts take another time than valid ones (median "
        << median(invalid) << " ms against " << median(valid) << " ms)";
  }
}

}  // namespace
}  // namespace cryptoaccel
