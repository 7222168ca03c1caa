// The algorithm table, built from the rows of cryptoaccel/algorithms.def.
//
// What a new algorithm needs, each checked when the library compiles:
//   1. a row in include/cryptoaccel/algorithms.def: its id, names, OID and
//      sizes (the builders below); the provider registers the OpenSSL names
//      and the OID from it (src/provider/names.cpp), the command lists it;
//   2. a known answer in src/core/self_test_vectors.cpp (a static_assert
//      wants one per id, in order) and its vector files in
//      tests/kat/vector_loader.cpp (a switch with no default);
//   3. in each driver that serves it, that driver's name for it: the kernel's
//      in src/kernel/crypto_names.cpp and the cryptodev ABI's in
//      src/abi/cryptodev.cpp (switch / checked table), the soft driver's from
//      openssl_name. A driver that does not map it simply does not claim it.
// A new cipher mode or kind also needs its provider family
// (src/provider/cipher_*.cpp) and each driver's code for the mode.
// docs/adding.md walks through it.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "cryptoaccel/algorithm.hpp"
#include "cryptoaccel/error.hpp"

namespace cryptoaccel {
namespace {

using K = AlgorithmKind;
using M = CipherMode;

constexpr SizeRange fixed(std::size_t n) {
  return {n, n};
}
constexpr SizeRange kNone{0, 0};
// HMAC takes keys of any length; the bound only keeps hostile input finite.
constexpr SizeRange kHmacKeys{0, 65536};
// GCM defines any IV length; 12 bytes is the fast, recommended one. The bound
// covers every CAVP vector (up to 1024 bits) and is OpenSSL's own limit.
constexpr SizeRange kGcmIvs{1, 128};

struct Names {
  std::string_view canonical, openssl, openssl_aliases, oid, other;
};

constexpr Names names(std::string_view canonical, std::string_view openssl,
                      std::string_view openssl_aliases = {}, std::string_view oid = {},
                      std::string_view other = {}) {
  return {canonical, openssl, openssl_aliases, oid, other};
}

// The row's id is filled in from the .def line (with_id), so builders leave it.
constexpr Algorithm row(const Names& n, K kind, M mode) {
  Algorithm a{};
  a.name = n.canonical;
  a.openssl_name = n.openssl;
  a.openssl_aliases = n.openssl_aliases;
  a.oid = n.oid;
  a.other_names = n.other;
  a.kind = kind;
  a.mode = mode;
  a.input_multiple = 1;
  return a;
}

constexpr Algorithm cipher(const Names& n, M mode, std::size_t key, std::size_t iv,
                           std::size_t block, std::size_t multiple, std::size_t min_input,
                           bool insecure = false, std::string_view note = {}) {
  Algorithm a = row(n, K::cipher, mode);
  a.key_size = fixed(key);
  a.iv_size = iv;
  a.iv_sizes = fixed(iv);
  a.block_size = block;
  a.input_multiple = multiple;
  a.min_input = min_input;
  a.insecure = insecure;
  a.note = note;
  return a;
}

constexpr Algorithm gcm(const Names& n, std::size_t key) {
  Algorithm a = row(n, K::aead, M::gcm);
  a.key_size = fixed(key);
  a.iv_size = 12;
  a.iv_sizes = kGcmIvs;
  a.block_size = 16;
  a.output_size = 16;
  a.tag_sizes = {4, 16};
  return a;
}

constexpr Algorithm chacha20_poly1305(const Names& n) {
  Algorithm a = row(n, K::aead, M::chacha20_poly1305);
  a.key_size = fixed(32);
  a.iv_size = 12;
  a.iv_sizes = fixed(12);
  a.block_size = 1;
  a.output_size = 16;
  a.tag_sizes = fixed(16);
  return a;
}

constexpr Algorithm digest(const Names& n, std::size_t block, std::size_t size,
                           bool insecure = false, std::string_view note = {}) {
  Algorithm a = row(n, K::digest, M::none);
  a.block_size = block;
  a.output_size = size;
  a.insecure = insecure;
  a.note = note;
  return a;
}

constexpr Algorithm hmac(const Names& n, std::string_view digest_name, std::size_t block,
                         std::size_t size) {
  Algorithm a = row(n, K::mac, M::none);
  a.key_size = kHmacKeys;
  a.block_size = block;
  a.output_size = size;
  a.digest = digest_name;
  return a;
}

// An RSA key travels as its blob (cryptoaccel/driver/rsa_key_blob.hpp),
// whose length depends on the encoding: the modulus is checked instead, by
// RsaSession. The bound only keeps hostile input finite.
constexpr SizeRange kRsaKeyBlobs{1, 16384};

constexpr Algorithm rsa(const Names& n, std::size_t bits) {
  Algorithm a = row(n, K::public_key, M::none);
  a.key_size = kRsaKeyBlobs;
  a.block_size = bits / 8;
  a.output_size = bits / 8;
  a.tag_sizes = fixed(bits / 8);  // a signature to verify travels as the request's tag
  return a;
}

constexpr Algorithm with_id(AlgorithmId id, Algorithm a) {
  a.id = id;
  return a;
}

constexpr std::array<Algorithm, kAlgorithmCount> kTable{{
#define CRYPTOACCEL_ALGORITHM(id, ...) with_id(AlgorithmId::id, __VA_ARGS__),
#include "cryptoaccel/algorithms.def"
#undef CRYPTOACCEL_ALGORITHM
}};

// Names are compared ignoring case, as OpenSSL compares them.
constexpr char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

constexpr bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

// Calls f(piece) for each piece of a colon-separated list; stops early
// when f returns true.
template <typename F>
constexpr bool any_piece(std::string_view list, F f) {
  while (!list.empty()) {
    const std::size_t colon = list.find(':');
    if (f(list.substr(0, colon))) return true;
    list = colon == std::string_view::npos ? std::string_view{} : list.substr(colon + 1);
  }
  return false;
}

// Calls f(name) for every name of a row: canonical, OpenSSL's, its aliases,
// the OID and the other names; stops early when f returns true.
template <typename F>
constexpr bool any_name(const Algorithm& a, F f) {
  for (std::string_view single : {a.name, a.openssl_name, a.oid})
    if (!single.empty() && f(single)) return true;
  return any_piece(a.openssl_aliases, f) || any_piece(a.other_names, f);
}

constexpr bool rows_are_well_formed() {
  for (std::size_t i = 0; i < kTable.size(); ++i) {
    const Algorithm& a = kTable[i];
    if (index_of(a.id) != i) return false;
    if (a.name.empty() || a.openssl_name.empty()) return false;
    // An empty piece (a stray colon) would register "" with OpenSSL.
    if (any_name(a, [](std::string_view n) { return n.empty(); })) return false;
    if (a.kind == K::mac && a.digest.empty()) return false;
  }
  return true;
}
static_assert(rows_are_well_formed(),
              "every row needs a canonical and an OpenSSL name, and no empty alias");

// Does a row other than `row` carry `name`?
constexpr bool named_elsewhere(std::string_view name, std::size_t row) {
  for (std::size_t j = 0; j < kTable.size(); ++j)
    if (j != row &&
        any_name(kTable[j], [&](std::string_view n) { return equal_ignoring_case(name, n); }))
      return true;
  return false;
}

// The names the provider registers: OpenSSL's, its aliases, the OID.
constexpr bool registers_a_name_twice(const Algorithm& a) {
  std::size_t count = 0;
  std::array<std::string_view, 16> registered{};
  const auto add = [&](std::string_view n) {
    for (std::size_t k = 0; k < count; ++k)
      if (equal_ignoring_case(registered[k], n)) return true;
    if (count == registered.size()) return true;
    registered[count++] = n;
    return false;
  };
  return add(a.openssl_name) || (!a.oid.empty() && add(a.oid)) || any_piece(a.openssl_aliases, add);
}

// A name leads to one row; within a row the canonical name may equal an
// OpenSSL one ignoring case ("sha256", "SHA256"), which OpenSSL registers.
constexpr bool names_are_unique() {
  for (std::size_t i = 0; i < kTable.size(); ++i) {
    if (registers_a_name_twice(kTable[i])) return false;
    if (any_name(kTable[i], [i](std::string_view n) { return named_elsewhere(n, i); }))
      return false;
  }
  return true;
}
static_assert(names_are_unique(),
              "a name, alias or OID names two rows, or one row registers it twice");

}  // namespace

std::span<const Algorithm> algorithms() noexcept {
  return kTable;
}

const Algorithm& algorithm(AlgorithmId id) noexcept {
  return kTable[index_of(id)];
}

namespace {

constexpr bool less_ignoring_case(std::string_view a, std::string_view b) {
  const std::size_t common = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < common; ++i)
    if (lower(a[i]) != lower(b[i])) return lower(a[i]) < lower(b[i]);
  return a.size() < b.size();
}

constexpr std::size_t count_names() {
  std::size_t n = 0;
  for (const Algorithm& a : kTable) any_name(a, [&n](std::string_view) { return ++n, false; });
  return n;
}

struct NamedRow {
  std::string_view name;
  std::size_t row;
};

// Every name of every row, sorted ignoring case, a name's rows in table
// order: a lookup is a binary search, not a walk through every alias list
// (an HMAC's digest is looked up at each of its inits, dozens of times in
// one TLS 1.3 handshake), and finds the first row that carries the name,
// as the walk did.
constexpr auto kNameIndex = [] {
  std::array<NamedRow, count_names()> index{};
  std::size_t n = 0;
  for (std::size_t row = 0; row < kTable.size(); ++row)
    any_name(kTable[row], [&](std::string_view name) {
      index[n++] = {name, row};
      return false;
    });
  std::sort(index.begin(), index.end(), [](const NamedRow& x, const NamedRow& y) {
    if (less_ignoring_case(x.name, y.name)) return true;
    if (less_ignoring_case(y.name, x.name)) return false;
    return x.row < y.row;
  });
  return index;
}();

}  // namespace

const Algorithm* find_algorithm(std::string_view name) noexcept {
  const auto found =
      std::lower_bound(kNameIndex.begin(), kNameIndex.end(), name,
                       [](const NamedRow& r, std::string_view n) { return less_ignoring_case(r.name, n); });
  if (found == kNameIndex.end() || !equal_ignoring_case(found->name, name)) return nullptr;
  return &kTable[found->row];
}

const Algorithm& algorithm_or_throw(std::string_view name) {
  if (const Algorithm* a = find_algorithm(name)) return *a;
  throw NotFound("unknown algorithm '" + std::string(name) +
                 "' (`cryptoaccel list` shows the algorithms)");
}

void advance_counter(const Algorithm& a, std::span<std::uint8_t> iv,
                     std::uint64_t blocks) noexcept {
  if (a.mode == M::ctr) {
    for (std::size_t i = iv.size(); i-- > 0 && blocks != 0;) {
      const std::uint64_t sum = iv[i] + (blocks & 0xff);
      iv[i] = static_cast<std::uint8_t>(sum);
      blocks = (blocks >> 8) + (sum >> 8);
    }
  } else if (a.mode == M::chacha20 && iv.size() >= 8) {
    for (std::size_t i = 0; i < 8 && blocks != 0; ++i) {
      const std::uint64_t sum = iv[i] + (blocks & 0xff);
      iv[i] = static_cast<std::uint8_t>(sum);
      blocks = (blocks >> 8) + (sum >> 8);
    }
  }
}

std::string_view to_string(AlgorithmKind kind) noexcept {
  switch (kind) {
    case K::cipher:
      return "cipher";
    case K::aead:
      return "aead";
    case K::digest:
      return "digest";
    case K::mac:
      return "mac";
    case K::public_key:
      return "public-key";
  }
  return "?";
}

std::string_view to_string(CipherMode mode) noexcept {
  switch (mode) {
    case M::none:
      return "none";
    case M::ecb:
      return "ecb";
    case M::cbc:
      return "cbc";
    case M::ctr:
      return "ctr";
    case M::xts:
      return "xts";
    case M::gcm:
      return "gcm";
    case M::chacha20:
      return "chacha20";
    case M::chacha20_poly1305:
      return "chacha20-poly1305";
  }
  return "?";
}

}  // namespace cryptoaccel
