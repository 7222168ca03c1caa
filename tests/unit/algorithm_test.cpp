#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "cryptoaccel/cryptoaccel.hpp"

namespace cryptoaccel {
namespace {

TEST(AlgorithmTable, CoversTheAlgorithmsOfTheFoundationIssue) {
  for (const char* name : {"aes-128-ecb", "aes-192-ecb",  "aes-256-ecb", "aes-128-cbc",
                           "aes-192-cbc", "aes-256-cbc",  "aes-128-ctr", "aes-192-ctr",
                           "aes-256-ctr", "aes-128-xts",  "aes-256-xts", "aes-128-gcm",
                           "aes-192-gcm", "aes-256-gcm",  "chacha20",    "chacha20-poly1305",
                           "des-cbc",     "des-ede3-cbc", "md5",         "sha1",
                           "sha224",      "sha256",       "sha384",      "sha512",
                           "hmac-md5",    "hmac-sha1",    "hmac-sha224", "hmac-sha256",
                           "hmac-sha384", "hmac-sha512"})
    EXPECT_NE(find_algorithm(name), nullptr) << name;
  EXPECT_EQ(algorithms().size(), kAlgorithmCount);
}

TEST(AlgorithmTable, NamesAreUniqueAndIdsIndexTheTable) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < algorithms().size(); ++i) {
    const Algorithm& a = algorithms()[i];
    EXPECT_EQ(index_of(a.id), i);
    EXPECT_TRUE(names.insert(std::string(a.name)).second) << a.name;
    EXPECT_TRUE(names.insert(std::string(a.openssl_name)).second) << a.openssl_name;
    EXPECT_EQ(&algorithm(a.id), &a);
  }
}

TEST(AlgorithmTable, EveryNameOfARowFindsIt) {
  // OpenSSL's aliases and OIDs, and the kernel's spellings, all from the row.
  EXPECT_EQ(find_algorithm("AES128"), &algorithm(AlgorithmId::aes_128_cbc));
  EXPECT_EQ(find_algorithm("id-aes192-GCM"), &algorithm(AlgorithmId::aes_192_gcm));
  EXPECT_EQ(find_algorithm("2.16.840.1.101.3.4.2.1"), &algorithm(AlgorithmId::sha256));
  EXPECT_EQ(find_algorithm("sha-256"), &algorithm(AlgorithmId::sha256));
  EXPECT_EQ(find_algorithm("rmd160"), &algorithm(AlgorithmId::ripemd160));
  EXPECT_EQ(find_algorithm("hmac(rmd160)"), &algorithm(AlgorithmId::hmac_ripemd160));
  EXPECT_EQ(find_algorithm("3des"), &algorithm(AlgorithmId::des_ede3_cbc));
  // HMAC is OpenSSL's one EVP_MAC, not an algorithm of the table.
  EXPECT_EQ(find_algorithm("hmac"), nullptr);
  EXPECT_EQ(find_algorithm(""), nullptr);
  EXPECT_EQ(find_algorithm("sha256:sha-256"), nullptr);
}

// Every name of every row, in any case, finds the first row that carries
// it, as a walk through the table in order does.
TEST(AlgorithmTable, EveryNameInAnyCaseFindsTheFirstRowCarryingIt) {
  const auto pieces = [](std::string_view list) {
    std::vector<std::string> out;
    while (!list.empty()) {
      const std::size_t colon = list.find(':');
      out.emplace_back(list.substr(0, colon));
      list = colon == std::string_view::npos ? std::string_view{} : list.substr(colon + 1);
    }
    return out;
  };
  const auto names_of = [&](const Algorithm& a) {
    std::vector<std::string> names;
    for (std::string_view single : {a.name, a.openssl_name, a.oid})
      if (!single.empty()) names.emplace_back(single);
    for (std::string_view list : {a.openssl_aliases, a.other_names})
      for (std::string& n : pieces(list)) names.push_back(std::move(n));
    return names;
  };
  const auto same_ignoring_case = [](std::string_view x, std::string_view y) {
    return x.size() == y.size() &&
           std::equal(x.begin(), x.end(), y.begin(), [](char c, char d) {
             return std::tolower(static_cast<unsigned char>(c)) ==
                    std::tolower(static_cast<unsigned char>(d));
           });
  };
  std::size_t checked = 0;
  for (const Algorithm& a : algorithms()) {
    for (const std::string& name : names_of(a)) {
      const Algorithm* first = nullptr;
      for (const Algorithm& b : algorithms()) {
        for (const std::string& n : names_of(b))
          if (same_ignoring_case(n, name)) first = &b;
        if (first != nullptr) break;
      }
      std::string upper = name, lower = name;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      EXPECT_EQ(find_algorithm(name), first) << name;
      EXPECT_EQ(find_algorithm(upper), first) << upper;
      EXPECT_EQ(find_algorithm(lower), first) << lower;
      // One character more or less is another name (or none).
      EXPECT_NE(find_algorithm(name + "x"), first) << name;
      ++checked;
    }
  }
  EXPECT_GT(checked, 2 * algorithms().size());
  EXPECT_EQ(find_algorithm("zzzz-not-an-algorithm"), nullptr);
  EXPECT_EQ(find_algorithm("0"), nullptr);
}

TEST(AlgorithmTable, ShapesAreConsistent) {
  for (const Algorithm& a : algorithms()) {
    SCOPED_TRACE(std::string(a.name));
    switch (a.kind) {
      case AlgorithmKind::cipher:
        EXPECT_GT(a.key_size.min, 0u);
        EXPECT_TRUE(a.input_multiple == 1 || a.input_multiple == a.block_size);
        // The session checks lengths with a mask: it must be a power of two.
        EXPECT_EQ(a.input_multiple & (a.input_multiple - 1), 0u);
        break;
      case AlgorithmKind::aead:
        EXPECT_TRUE(a.tag_sizes.contains(a.output_size));
        EXPECT_TRUE(a.iv_sizes.contains(a.iv_size));
        break;
      case AlgorithmKind::digest:
        EXPECT_EQ(a.key_size.max, 0u);
        break;
      case AlgorithmKind::mac:
        ASSERT_NE(find_algorithm(a.digest), nullptr);
        EXPECT_EQ(find_algorithm(a.digest)->output_size, a.output_size);
        break;
      case AlgorithmKind::public_key:
        // A modulus of whole bytes; the key is its blob, of any length.
        EXPECT_EQ(a.output_size % 128, 0u);
        EXPECT_EQ(a.block_size, a.output_size);
        EXPECT_GT(a.key_size.max, a.output_size * 4);
        break;
    }
  }
  EXPECT_TRUE(algorithm(AlgorithmId::des_cbc).insecure);
  EXPECT_EQ(algorithm(AlgorithmId::aes_256_xts).key_size, (SizeRange{64, 64}));
  EXPECT_EQ(algorithm(AlgorithmId::aes_128_gcm).tag_sizes, (SizeRange{4, 16}));
  // OpenSSL's 16-byte IV (le32 counter || 96-bit nonce), any input length.
  const Algorithm& chacha = algorithm(AlgorithmId::chacha20);
  EXPECT_EQ(chacha.iv_size, 16u);
  EXPECT_EQ(chacha.key_size, (SizeRange{32, 32}));
  EXPECT_EQ(chacha.input_multiple, 1u);
}

TEST(AlgorithmTable, AdvancesCountersAsOpenSslDoes) {
  // CTR: a big-endian 128-bit counter over the whole IV.
  std::array<std::uint8_t, 16> ctr{};
  ctr[15] = 0xff;
  advance_counter(algorithm(AlgorithmId::aes_128_ctr), ctr, 2);
  EXPECT_EQ(ctr[14], 1);
  EXPECT_EQ(ctr[15], 1);
  // ChaCha20: little-endian in bytes 0-3, carrying into 4-7, never further.
  std::array<std::uint8_t, 16> chacha{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 9};
  advance_counter(algorithm(AlgorithmId::chacha20), chacha, 3);
  EXPECT_EQ(chacha, (std::array<std::uint8_t, 16>{2, 0, 0, 0, 0, 0, 0, 0, 9}));
  std::array<std::uint8_t, 16> low{0xfe, 0xff, 0xff, 0xff, 7};
  advance_counter(algorithm(AlgorithmId::chacha20), low, 0x102);
  EXPECT_EQ(low, (std::array<std::uint8_t, 16>{0x00, 0x01, 0, 0, 8}));
}

TEST(AlgorithmTable, LooksUpOpenSslNamesAndAliasesIgnoringCase) {
  EXPECT_EQ(find_algorithm("AES-128-CBC")->id, AlgorithmId::aes_128_cbc);
  EXPECT_EQ(find_algorithm("SHA2-256")->id, AlgorithmId::sha256);
  EXPECT_EQ(find_algorithm("hmac(sha256)")->id, AlgorithmId::hmac_sha256);
  EXPECT_EQ(find_algorithm("ChaCha20-Poly1305")->id, AlgorithmId::chacha20_poly1305);
  EXPECT_EQ(find_algorithm("ChaCha20")->id, AlgorithmId::chacha20);
  EXPECT_EQ(find_algorithm("des3")->id, AlgorithmId::des_ede3_cbc);
  EXPECT_EQ(find_algorithm("aes-128-cbcx"), nullptr);
  EXPECT_EQ(find_algorithm(""), nullptr);
}

// RIPEMD-160 under every name OpenSSL and the kernel give it (the
// /dev/crypto server and AF_ALG look it up by these).
TEST(AlgorithmTable, KnowsRipemd160ByOpenSslAndKernelNames) {
  for (const char* name : {"ripemd160", "RIPEMD-160", "RIPEMD160", "RMD160", "ripemd", "rmd160"}) {
    ASSERT_NE(find_algorithm(name), nullptr) << name;
    EXPECT_EQ(find_algorithm(name)->id, AlgorithmId::ripemd160) << name;
  }
  for (const char* name : {"hmac-ripemd160", "HMAC-RIPEMD160", "hmac(rmd160)"}) {
    ASSERT_NE(find_algorithm(name), nullptr) << name;
    EXPECT_EQ(find_algorithm(name)->id, AlgorithmId::hmac_ripemd160) << name;
  }
  for (const AlgorithmId id : {AlgorithmId::ripemd160, AlgorithmId::hmac_ripemd160}) {
    const Algorithm& a = algorithm(id);
    EXPECT_EQ(a.block_size, 64u) << a.name;
    EXPECT_EQ(a.output_size, 20u) << a.name;
    EXPECT_FALSE(a.insecure) << a.name;
  }
  EXPECT_EQ(algorithm(AlgorithmId::hmac_ripemd160).digest, "ripemd160");
}

TEST(AlgorithmTable, UnknownNameThrowsNotFoundNamingIt) {
  try {
    algorithm_or_throw("rot13");
    FAIL() << "no exception";
  } catch (const NotFound& e) {
    EXPECT_EQ(e.code(), ErrorCode::not_found);
    EXPECT_NE(std::string(e.what()).find("rot13"), std::string::npos);
  }
}

}  // namespace
}  // namespace cryptoaccel
