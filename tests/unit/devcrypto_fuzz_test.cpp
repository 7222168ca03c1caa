// The /dev/crypto decoder fuzzer's check (tests/fuzz/devcrypto_check.hpp)
// on a fixed stream of mutated request sequences: the deterministic part of
// the decoder fuzzing that `make test` runs, under ASan+UBSan in the
// sanitizer build. libFuzzer (devcrypto_fuzzer, docs/testing.md) explores
// further.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

#include "../fuzz/devcrypto_check.hpp"
#include "../fuzz/devcrypto_seed.hpp"
#include "build_paths.hpp"

namespace cryptoaccel {
namespace {

using Bytes = std::vector<std::uint8_t>;

// Byte-level mutations, as libFuzzer's are: flips, interesting values,
// inserted, deleted and duplicated ranges (a step said twice), a cut.
Bytes mutate(Bytes in, std::mt19937_64& rng) {
  const auto pick = [&](std::size_t n) { return n == 0 ? 0 : std::size_t(rng() % n); };
  static const std::uint8_t kValues[] = {0,    1,    2,    4,    7,    8,    12,  16,
                                         0x10, 0x20, 0x40, 0x7f, 0x80, 0xfe, 0xff};
  const int rounds = 1 + int(rng() % 4);
  for (int r = 0; r < rounds; ++r) {
    const std::size_t at = pick(in.size() + 1);
    switch (rng() % 7) {
      case 0:
        if (!in.empty()) in[pick(in.size())] ^= std::uint8_t(1 << (rng() % 8));
        break;
      case 1:
      case 2:
        if (!in.empty()) in[pick(in.size())] = kValues[pick(std::size(kValues))];
        break;
      case 3:
        for (std::size_t n = 1 + pick(8); n > 0; --n)
          in.insert(in.begin() + std::ptrdiff_t(at), std::uint8_t(rng()));
        break;
      case 4:
        in.erase(in.begin() + std::ptrdiff_t(at),
                 in.begin() + std::ptrdiff_t(std::min(in.size(), at + pick(16))));
        break;
      case 5: {
        const std::size_t from = pick(in.size() + 1);
        const Bytes piece(in.begin() + std::ptrdiff_t(from),
                          in.begin() + std::ptrdiff_t(std::min(in.size(), from + pick(128))));
        in.insert(in.begin() + std::ptrdiff_t(at), piece.begin(), piece.end());
        break;
      }
      default:
        if (rng() % 4 == 0) in.resize(at);
        break;
    }
  }
  return in;
}

TEST(DevcryptoFuzz, TheSeedCreatesUsesAndFreesSessions) {
  const Bytes seed = fuzz::devcrypto_seed();
  const fuzz::DevcryptoTally t = fuzz::check_devcrypto_input(seed.data(), seed.size());
  // CBC, SHA-256, HMAC, GCM, 3 CTR on B (then ENOSPC twice), ECB-192 on A
  // after XTS was refused (ENOMEM), and 3DES once B reopened; CIOCKEY's
  // MOD_EXP and MOD_EXP_CRT.
  EXPECT_EQ(t.sessions, 9u);
  EXPECT_EQ(t.done, 20u);
  EXPECT_EQ(t.errors, 6u) << "the changed struct, ENOENT, ENOSPC twice, ENOMEM, DSA's EOPNOTSUPP";
  EXPECT_EQ(t.faults, 0u);
}

// What the libFuzzer runs found, each fixed since: the check aborts on
// any rule broken, and the run must not.
TEST(DevcryptoFuzz, TheFindingsKeepTheProtocol) {
  std::size_t replayed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(build_paths::kFuzzFindings)) {
    std::ifstream file(entry.path(), std::ios::binary);
    const Bytes input{std::istreambuf_iterator<char>(file), {}};
    SCOPED_TRACE(entry.path().filename().string());
    fuzz::check_devcrypto_input(input.data(), input.size());
    ++replayed;
  }
  EXPECT_GE(replayed, 2u);
}

// `inputs` mutations of `seed` (mostly the seed mutated; sometimes a
// mutant mutated again) through the check, their tallies summed.
fuzz::DevcryptoTally run_mutations(const Bytes& seed, std::uint64_t rng_seed, int inputs) {
  std::mt19937_64 rng(rng_seed);
  fuzz::DevcryptoTally total;
  for (int i = 0; i < inputs; ++i) {
    const Bytes input = mutate(i % 3 == 0 ? mutate(seed, rng) : seed, rng);
    const fuzz::DevcryptoTally t = fuzz::check_devcrypto_input(input.data(), input.size());
    total.done += t.done;
    total.errors += t.errors;
    total.faults += t.faults;
    total.sessions += t.sessions;
  }
  return total;
}

// The 32-bit seed (the sequence as a 32-bit program's, and requests queued
// in one layout and fetched in the other), mutated.
TEST(DevcryptoFuzz, MutatedThirtyTwoBitSequencesKeepTheProtocol) {
  constexpr int kInputs = 5000;
  const fuzz::DevcryptoTally total = run_mutations(fuzz::devcrypto_seed32(), 32, kInputs);
  EXPECT_GT(total.done, std::size_t(kInputs) * 5);
  EXPECT_GT(total.errors, std::size_t(kInputs));
  EXPECT_GT(total.sessions, std::size_t(kInputs) * 3);
}

TEST(DevcryptoFuzz, MutatedRequestSequencesKeepTheProtocol) {
  constexpr int kInputs = 20000;
  const fuzz::DevcryptoTally total = run_mutations(fuzz::devcrypto_seed(), 15, kInputs);
  // Every outcome occurs: work done, requests refused, copies that fault.
  EXPECT_GT(total.done, std::size_t(kInputs) * 5);
  EXPECT_GT(total.errors, std::size_t(kInputs));
  EXPECT_GT(total.faults, 20u);
  EXPECT_GT(total.sessions, std::size_t(kInputs) * 3);
  RecordProperty("done", int(total.done));
  RecordProperty("errors", int(total.errors));
  RecordProperty("faults", int(total.faults));
}

}  // namespace
}  // namespace cryptoaccel
