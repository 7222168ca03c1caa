// The profile fuzzer's check (tests/fuzz/profile_check.hpp) on a fixed
// stream of mutated profiles: the deterministic part of the profile fuzzing
// that `make test` runs, under ASan+UBSan in the sanitizer build. libFuzzer
// (profile_fuzzer, docs/testing.md) explores further.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../fuzz/profile_check.hpp"
#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel {
namespace {

std::string seed_profile() {
  Profile p;
  p.created = "2026-11-30T00:00:00Z";
  p.drivers["soft"] = "soft | OpenSSL | software | priority 100";
  p.drivers["afalg:x"] = "afalg:x | kernel | hardware | priority 150";
  p.measurements.push_back({.driver = "soft",
                            .algorithm = AlgorithmId::aes_128_cbc,
                            .size = 16,
                            .in_flight = 1,
                            .workers = 1,
                            .bytes_per_second = 9.1e6,
                            .cpu_seconds_per_byte = 1.2e-7});
  p.measurements.push_back({.driver = "afalg:x",
                            .algorithm = AlgorithmId::sha256,
                            .size = 65536,
                            .in_flight = 8,
                            .workers = 2,
                            .bytes_per_second = 3.4e7,
                            .cpu_seconds_per_byte = 0});
  return to_json(p);
}

// Tokens a mutation splices in: the numbers and shapes issue 15 names.
const char* const kTokens[] = {"1e400",
                               "-1e400",
                               "1e300",
                               "-1",
                               "2.5",
                               "0",
                               "1e12",
                               "4294967296",
                               "18446744073709551616",
                               "-9223372036854775809",
                               "1.0",
                               "null",
                               "true",
                               "\"\"",
                               "[",
                               "]",
                               "{",
                               "}",
                               ",",
                               ":",
                               "\"",
                               "\\u0000",
                               "\xff",
                               "NaN",
                               "Infinity",
                               "\"version\": ",
                               "\"size\": ",
                               "\"measurements\": [",
                               "\"drivers\": {",
                               "\"workers\": ",
                               "\"in_flight\": ",
                               "\"bytes_per_second\": ",
                               "\"cpu_seconds_per_byte\": ",
                               "\"soft\"",
                               "\"aes-128-cbc\"",
                               "1e-400",
                               "-0",
                               "0e0"};

std::string mutate(std::string text, std::mt19937_64& rng) {
  const auto pick = [&](std::size_t n) { return n == 0 ? 0 : std::size_t(rng() % n); };
  const int rounds = 1 + int(rng() % 4);
  for (int r = 0; r < rounds; ++r) {
    const std::size_t at = pick(text.size() + 1);
    switch (rng() % 6) {
      case 0:  // flip a byte
        if (!text.empty()) text[pick(text.size())] ^= char(1 << (rng() % 8));
        break;
      case 1:  // splice a token in
        text.insert(at, kTokens[pick(std::size(kTokens))]);
        break;
      case 2: {  // replace the number that starts after a ": "
        const auto colon = text.find(": ", at);
        if (colon == std::string::npos) break;
        const auto start = colon + 2;
        const auto end = text.find_first_of(",\n}", start);
        text.replace(start, end == std::string::npos ? 0 : end - start,
                     kTokens[pick(std::size(kTokens))]);
        break;
      }
      case 3:  // delete a range
        text.erase(at, pick(32));
        break;
      case 4: {  // duplicate a range
        const std::size_t from = pick(text.size() + 1);
        text.insert(at, text.substr(from, pick(64)));
        break;
      }
      default:  // truncate
        text.resize(at);
        break;
    }
  }
  return text;
}

TEST(ProfileFuzz, MutatedProfilesAreProfilesOrReasons) {
  const std::string seed = seed_profile();
  ASSERT_TRUE(
      fuzz::check_profile_input(reinterpret_cast<const std::uint8_t*>(seed.data()), seed.size()));
  std::mt19937_64 rng(15);
  std::size_t accepted = 0;
  constexpr int kInputs = 20000;
  for (int i = 0; i < kInputs; ++i) {
    const std::string input = mutate(seed, rng);
    if (fuzz::check_profile_input(reinterpret_cast<const std::uint8_t*>(input.data()),
                                  input.size()))
      ++accepted;
  }
  // Both outcomes occur, so the run explores the checks and the round trip.
  EXPECT_GT(accepted, 100u);
  EXPECT_LT(accepted, std::size_t(kInputs));
  RecordProperty("accepted", int(accepted));
}

}  // namespace
}  // namespace cryptoaccel
