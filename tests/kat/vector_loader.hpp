// Turns the vector files of Debian's python3-cryptography-vectors (and the
// few of tests/data) into one flat list of known answers per algorithm. Only
// the files an algorithm needs are read, so one test process (ctest runs each
// test alone) reads little.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cryptoaccel/algorithm.hpp"
#include "cryptoaccel/session.hpp"
#include "rsp_parser.hpp"

namespace cryptoaccel::kat {

enum class VectorKind : std::uint8_t {
  cipher,  // in -> out under key and iv, in `direction`
  aead,    // encrypt: seal in -> out, tag; decrypt: open in, tag -> out (or must fail)
  digest,  // digest(in) == out
  mac,     // hmac(key, in) starts with out (RFC 4231 has truncated outputs)
  monte,   // SHAVS Monte Carlo: 1000 chained digests from the seed `in` give `out`
};

std::string_view to_string(VectorKind kind) noexcept;

struct KatVector {
  AlgorithmId algorithm{};
  VectorKind kind = VectorKind::cipher;
  Direction direction = Direction::encrypt;
  ByteVector key{}, iv{}, aad{}, in{}, out{}, tag{};  // {}: designated initializers may omit them
  bool expect_auth_failure = false;                   // AEAD open must throw AuthenticationFailed
  std::string source;  // "ciphers/AES/CBC/CBCMMT128.rsp:42" or "...Monte.rsp#COUNT=7"
};

// Vectors left out on purpose, with why (e.g. bit-oriented XTS data units).
struct SkippedVectors {
  std::string file;
  std::size_t count = 0;
  std::string reason;
};

struct LoadedVectors {
  std::vector<KatVector> vectors;
  std::vector<SkippedVectors> skipped;
  // Missing files and malformed records. Never ignored: each one fails the
  // algorithm's test, so a vector cannot silently drop out of the suite.
  std::vector<std::string> errors;

  std::size_t skipped_count() const noexcept;
};

// $CRYPTOACCEL_VECTORS_DIR when set, else where Debian installs the package.
std::filesystem::path vectors_root();

// tests/data of the source tree: vectors the package does not ship.
std::filesystem::path project_vectors_root();

// The files, relative to their root, that hold `id`'s vectors. Empty only for an
// algorithm that has none mapped yet, which the suite reports as a failure.
std::vector<std::string> vector_files(AlgorithmId id);

// Reads `id`'s files from `root` (the package's) and project_vectors_root().
LoadedVectors load_vectors(AlgorithmId id, const std::filesystem::path& root);

}  // namespace cryptoaccel::kat
