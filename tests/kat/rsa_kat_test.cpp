// RSA's known answers, through every driver that claims an RSA size: the
// CAVP files (SigGen15, SigGenPSS, SigVer15, SigVerPSS) and RSA
// Laboratories' PKCS#1 sets (RFC 8017's pkcs-1v2-1d2 vectors, the v1.5
// encryption and signature sets, and pyca's OAEP-SHA2 set derived from
// them), as Debian's python3-cryptography-vectors ships them. Keys of sizes
// the table has no row for (1024, 1536 bits...) are counted and skipped.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/best_kernel_rsa.hpp"
#include "cryptoaccel/driver/rsa_padding.hpp"
#include "cryptoaccel/framework.hpp"
#include "cryptoaccel/rsa.hpp"
#include "vector_loader.hpp"

namespace cryptoaccel::kat {
namespace {

namespace fs = std::filesystem;

fs::path rsa_dir() {
  return vectors_root() / "asymmetric" / "RSA";
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Hex digits, ignoring spaces; an odd count is a number with its leading
// zero left out (pyca's "10001").
ByteVector unhex(std::string_view text) {
  ByteVector out;
  std::string digits;
  for (const char c : text)
    if (std::isxdigit(static_cast<unsigned char>(c))) digits += c;
  if (digits.size() % 2 != 0) digits.insert(digits.begin(), '0');
  int high = -1;
  for (const char c : digits) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) continue;
    const int v =
        std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (std::tolower(c) - 'a' + 10);
    if (high < 0) {
      high = v;
    } else {
      out.push_back(static_cast<std::uint8_t>(high << 4 | v));
      high = -1;
    }
  }
  return out;
}

ByteVector strip_zeros(ByteVector v) {
  std::size_t i = 0;
  while (i + 1 < v.size() && v[i] == 0) ++i;
  return ByteVector(v.begin() + static_cast<std::ptrdiff_t>(i), v.end());
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// The digest of the table a CAVP "SHAAlg" or pyca "alg=" names.
AlgorithmId digest_id(std::string name) {
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return algorithm_or_throw(name).id;
}

ByteVector hash(AlgorithmId id, const ByteVector& message) {
  ByteVector out(EVP_MAX_MD_SIZE);
  unsigned int n = 0;
  const std::string name(algorithm(id).openssl_name);
  EVP_MD* md = EVP_MD_fetch(nullptr, name.c_str(), nullptr);
  EXPECT_NE(md, nullptr) << name;
  EXPECT_EQ(EVP_Digest(message.data(), message.size(), out.data(), &n, md, nullptr), 1);
  EVP_MD_free(md);
  out.resize(n);
  return out;
}

// ---- CAVP: [mod = N], n, e, d, then records SHAAlg, Msg, S, ... --------

struct CavpRecord {
  std::size_t line = 0;
  std::size_t mod = 0;
  ByteVector n, e, d;
  AlgorithmId digest{};
  ByteVector message, signature, salt;
  std::optional<bool> pass;  // SigVer: Result = P or F
};

std::vector<CavpRecord> parse_cavp(const fs::path& path) {
  std::vector<CavpRecord> out;
  std::istringstream lines(read_file(path));
  std::string line;
  CavpRecord current;
  bool open = false;
  std::size_t number = 0;
  const auto flush = [&] {
    if (open && !current.signature.empty()) out.push_back(current);
    open = false;
    current.signature.clear();
    current.salt.clear();
    current.pass.reset();
  };
  while (std::getline(lines, line)) {
    ++number;
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    if (t.rfind("[mod = ", 0) == 0) {
      flush();
      current.mod = std::stoul(t.substr(7));
      continue;
    }
    const std::size_t eq = t.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = trim(t.substr(0, eq)), value = trim(t.substr(eq + 1));
    if (name == "SHAAlg") {
      flush();
      open = true;
      current.line = number;
      current.digest = digest_id(value);
    } else if (name == "n") {
      flush();
      current.n = unhex(value);
    } else if (name == "e") {
      current.e = strip_zeros(unhex(value));
    } else if (name == "d") {
      current.d = unhex(value);
    } else if (name == "Msg") {
      current.message = unhex(value);
    } else if (name == "S") {
      current.signature = unhex(value);
    } else if (name == "SaltVal") {
      current.salt = unhex(value);
    } else if (name == "Result") {
      current.pass = value.rfind('P', 0) == 0;
    }
  }
  flush();
  return out;
}

// ---- RSA Laboratories' sets: "# Label:" then hex lines ------------------

struct LabsKey {
  ByteVector n, e, d, p, q, dp, dq, qinv;
};

struct LabsVector {
  std::size_t line = 0;
  const LabsKey* key = nullptr;
  ByteVector message, encryption, signature, salt;
  std::string digest = "sha1", mgf1 = "sha1";  // pyca's OAEP set names its own
};

struct LabsFile {
  std::vector<std::unique_ptr<LabsKey>> keys;
  std::vector<LabsVector> vectors;
};

LabsFile parse_labs(const fs::path& path) {
  LabsFile file;
  std::istringstream lines(read_file(path));
  std::string line, label;
  std::map<std::string, ByteVector> values;
  LabsVector pending;
  bool private_part = false;
  std::string digest = "sha1", mgf1 = "sha1";
  std::size_t number = 0;
  const auto finish = [&] {
    if (label.empty()) return;
    ByteVector v = values[label];
    LabsKey* key = file.keys.empty() ? nullptr : file.keys.back().get();
    if (label == "Modulus") {
      if (key != nullptr && key->n == v) {
        private_part = true;
      } else {
        file.keys.push_back(std::make_unique<LabsKey>());
        file.keys.back()->n = v;
        private_part = false;
      }
    } else if (key == nullptr) {
    } else if (label == "Exponent") {
      (private_part ? key->d : key->e) = v;
    } else if (label == "Public exponent") {
      key->e = v;
    } else if (label == "Prime 1") {
      key->p = v;
    } else if (label == "Prime 2") {
      key->q = v;
    } else if (label == "Prime exponent 1") {
      key->dp = v;
    } else if (label == "Prime exponent 2") {
      key->dq = v;
    } else if (label == "Coefficient") {
      key->qinv = v;
    } else if (label.rfind("Message", 0) == 0) {
      pending = LabsVector{.line = number, .key = key, .message = v};
      pending.digest = digest;
      pending.mgf1 = mgf1;
    } else if (label == "Seed" || label == "Salt") {
      pending.salt = v;
    } else if (label == "Encryption" || label == "Signature") {
      (label == "Encryption" ? pending.encryption : pending.signature) = v;
      file.vectors.push_back(pending);
    }
    label.clear();
  };
  while (std::getline(lines, line)) {
    ++number;
    const std::string t = trim(line);
    if (t.rfind("#", 0) == 0) {
      finish();
      const std::string body = trim(t.substr(1));
      if (const auto at = body.find("alg="); at != std::string::npos)
        digest = body.substr(at + 4, body.find(' ', at) - at - 4);
      if (const auto at = body.find("mgf1="); at != std::string::npos)
        mgf1 = trim(body.substr(at + 5));
      if (!body.empty() && body.back() == ':') {
        label = trim(body.substr(0, body.size() - 1));
        values[label].clear();
      }
      continue;
    }
    if (!label.empty()) {
      const ByteVector bytes = unhex(t);
      values[label].insert(values[label].end(), bytes.begin(), bytes.end());
    }
  }
  finish();
  return file;
}

// ---- the drivers and their keys ------------------------------------------

std::vector<std::string> rsa_drivers() {
  std::vector<std::string> out;
  for (const DriverInfo& d : Framework::global().drivers())
    for (std::size_t i = 0; i < d.capabilities.size() && i < d.self_tests.size(); ++i)
      if (d.capabilities[i].algorithm == AlgorithmId::rsa2048 && d.self_tests[i].tested &&
          d.self_tests[i].passed)
        out.push_back(d.name);
  return out;
}

bool served_size(std::size_t bits) {
  return bits == 2048 || bits == 3072 || bits == 4096;
}

// CRYPTOACCEL_KAT_SAMPLE=N: every k-th vector of a file, about N of its
// served ones, for an emulated CPU (the cross builds under qemu-user),
// where a private-key operation costs tens of milliseconds. 1: every one.
std::size_t sample_stride(std::size_t served) {
  const char* text = std::getenv("CRYPTOACCEL_KAT_SAMPLE");
  const std::size_t limit = text != nullptr ? std::strtoul(text, nullptr, 10) : 0;
  if (limit == 0 || served <= limit) return 1;
  return (served + limit - 1) / limit;
}

bool sampling() {
  return sample_stride(std::numeric_limits<std::size_t>::max()) != 1;
}

// Keeps the served ones of `records` (by their modulus size), sampled.
template <class Record, class Bits>
std::vector<const Record*> served_sample(const std::vector<Record>& records, Bits bits) {
  std::vector<const Record*> served;
  for (const Record& r : records)
    if (served_size(bits(r))) served.push_back(&r);
  const std::size_t stride = sample_stride(served.size());
  std::vector<const Record*> kept;
  for (std::size_t i = 0; i < served.size(); i += stride) kept.push_back(served[i]);
  return kept;
}

// A map key for a key's numbers. (GCC 12 at -O3 warns, wrongly, about
// comparing vectors of bytes as map keys: strings compare the same bytes.)
std::string key_id(const ByteVector& n, const ByteVector& e) {
  return std::string(n.begin(), n.end()) + '/' + std::string(e.begin(), e.end());
}

// Keys are built once per modulus: CAVP's lack their factors, and finding
// them costs more than the vectors.
const RsaKey& cavp_key(const CavpRecord& r) {
  static std::map<std::string, RsaKey> keys;
  const std::string id = key_id(r.n, r.e);
  auto found = keys.find(id);
  if (found == keys.end())
    found = keys.emplace(id, RsaKey::from_components({.n = r.n, .e = r.e, .d = r.d})).first;
  return found->second;
}

// CAVP's public keys, one object per (n, e) as sessions are kept per key.
const RsaKey& cavp_public(const CavpRecord& r) {
  static std::map<std::string, RsaKey> keys;
  const std::string id = key_id(r.n, r.e);
  auto found = keys.find(id);
  if (found == keys.end())
    found = keys.emplace(id, RsaKey::from_components({.n = r.n, .e = r.e})).first;
  return found->second;
}

const RsaKey& labs_key(const LabsKey& k) {
  static std::map<std::string, RsaKey> keys;
  const std::string id = key_id(k.n, k.e);
  auto found = keys.find(id);
  if (found == keys.end())
    found = keys.emplace(id, RsaKey::from_components({.n = k.n,
                                                      .e = k.e,
                                                      .d = k.d,
                                                      .p = k.p,
                                                      .q = k.q,
                                                      .dp = k.dp,
                                                      .dq = k.dq,
                                                      .qinv = k.qinv}))
                .first;
  return found->second;
}

// The operations a driver's capability takes (a device's pkcs1pad(rsa)
// encrypts only).
std::uint8_t operations_of(const std::string& driver) {
  for (const DriverInfo& d : Framework::global().drivers())
    if (d.name == driver)
      for (const Capability& c : d.capabilities)
        if (c.algorithm == AlgorithmId::rsa2048) return c.operations;
  return 0;
}

class RsaKat : public testing::TestWithParam<std::string> {
 protected:
  SessionOptions pinned() const { return {.driver = GetParam()}; }
  // One session per key: a kernel driver loads the key into the keyring
  // once, not per vector.
  RsaSession& session(const RsaKey& key) {
    auto found = sessions_.find(&key);
    if (found == sessions_.end())
      found = sessions_.emplace(&key, std::make_unique<RsaSession>(key, pinned())).first;
    return *found->second;
  }
  bool takes(Operation op) const { return (operations_of(GetParam()) & operation_bit(op)) != 0; }
  // Only PKCS#1 v1.5 public-key encryption, on a device's own padding.
  bool pkcs1_encryption_only() const { return operations_of(GetParam()) != kEveryOperation; }
  // The kernel keyring loads private keys (PKCS#8) only.
  bool private_keys_only() const { return GetParam().starts_with("keyring:"); }
  // A driver that does not sign: the pinned session says so, and the test
  // has nothing more to check.
  bool refuses_signatures(const RsaKey& key) {
    if (takes(Operation::sign)) return false;
    EXPECT_THROW(session(key).sign({}, ByteVector(32, 1)), Unsupported);
    return true;
  }

 private:
  std::map<const RsaKey*, std::unique_ptr<RsaSession>> sessions_;
};

TEST_P(RsaKat, SigGen15SignsAsCavpDoes) {
  std::size_t checked = 0;
  const auto records = parse_cavp(rsa_dir() / "FIPS_186-2" / "SigGen15_186-2.txt");
  for (const CavpRecord* record : served_sample(records, [](const CavpRecord& r) { return r.mod; })) {
    const CavpRecord& r = *record;
    if (refuses_signatures(cavp_key(r))) return;
    SCOPED_TRACE("SigGen15_186-2.txt line " + std::to_string(r.line));
    RsaSession& signer = session(cavp_key(r));
    const RsaParameters p{.padding = RsaPadding::pkcs1, .digest = r.digest};
    const ByteVector digest = hash(r.digest, r.message);
    EXPECT_EQ(signer.sign(p, digest), r.signature);
    EXPECT_TRUE(signer.verify(p, digest, r.signature));
    ++checked;
  }
  EXPECT_EQ(checked, sampling() ? (150u + sample_stride(150) - 1) / sample_stride(150) : 150u);
}

TEST_P(RsaKat, SigGenSignaturesVerify) {
  std::size_t checked = 0;
  for (const char* file : {"SigGen15_186-3.rsp", "SigGenPSS_186-3.rsp", "SigGenPSS_186-2.txt"}) {
    const bool pss = std::string_view(file).find("PSS") != std::string_view::npos;
    const auto records = parse_cavp(rsa_dir() / "FIPS_186-2" / file);
    for (const CavpRecord* record :
         served_sample(records, [](const CavpRecord& r) { return r.mod; })) {
      const CavpRecord& r = *record;
      SCOPED_TRACE(std::string(file) + " line " + std::to_string(r.line));
      if (!takes(Operation::verify)) return;
      // The .rsp files give public keys only, which the keyring cannot hold:
      // their signatures are checked on the drivers that take them.
      if (r.d.empty() && private_keys_only()) continue;
      RsaSession& verifier = session(r.d.empty() ? cavp_public(r) : cavp_key(r));
      // The .txt gives the salt; the .rsp does not, so its length is found.
      const RsaParameters p{
          .padding = pss ? RsaPadding::pss : RsaPadding::pkcs1,
          .digest = r.digest,
          .mgf1_digest = r.digest,
          .salt_length = r.salt.empty() ? kSaltAuto : static_cast<int>(r.salt.size())};
      const ByteVector digest = hash(r.digest, r.message);
      EXPECT_TRUE(verifier.verify(p, digest, r.signature));
      if (pss && !r.d.empty()) {
        // PSS is randomised: a signature of ours must verify instead.
        EXPECT_TRUE(verifier.verify(p, digest, session(cavp_key(r)).sign(p, digest)));
      }
      ++checked;
    }
  }
  if (sampling())
    EXPECT_EQ(checked > 0, takes(Operation::verify));
  else
    EXPECT_EQ(checked, takes(Operation::verify) ? (private_keys_only() ? 150u : 450u) : 0u);
}

TEST_P(RsaKat, SigVerResults) {
  std::size_t passes = 0, failures = 0;
  for (const char* file : {"SigVer15_186-3.rsp", "SigVerPSS_186-3.rsp"}) {
    const bool pss = std::string_view(file).find("PSS") != std::string_view::npos;
    for (const CavpRecord& r : parse_cavp(rsa_dir() / "FIPS_186-2" / file)) {
      if (!served_size(r.mod)) continue;
      SCOPED_TRACE(std::string(file) + " line " + std::to_string(r.line));
      ASSERT_TRUE(r.pass.has_value());
      if (!takes(Operation::verify)) return;
      // CAVP's failing records may change e and leave d: no key has them
      // both, and the keyring (private keys only) cannot check those.
      const RsaKey* key = nullptr;
      try {
        key = private_keys_only() ? &cavp_key(r) : &cavp_public(r);
      } catch (const InvalidKey&) {
        EXPECT_FALSE(*r.pass) << "a passing record's key is not a key";
        ++failures;
        continue;
      }
      RsaSession& verifier = session(*key);
      const RsaParameters p{.padding = pss ? RsaPadding::pss : RsaPadding::pkcs1,
                            .digest = r.digest,
                            .mgf1_digest = r.digest,
                            .salt_length = static_cast<int>(r.salt.size())};
      EXPECT_EQ(verifier.verify(p, hash(r.digest, r.message), r.signature), *r.pass);
      ++(*r.pass ? passes : failures);
    }
  }
  if (!takes(Operation::verify)) return;
  EXPECT_EQ(passes + failures, 540u);
  EXPECT_GT(failures, 300u);
}

TEST_P(RsaKat, Pkcs1v15EncryptionDecrypts) {
  std::size_t checked = 0;
  const LabsFile file = parse_labs(rsa_dir() / "pkcs1v15crypt-vectors.txt");
  for (const LabsVector& v : file.vectors) {
    if (!served_size(v.key->n.size() * 8)) continue;
    SCOPED_TRACE("pkcs1v15crypt-vectors.txt line " + std::to_string(v.line));
    RsaSession& rsa = session(labs_key(*v.key));
    const RsaParameters p{.padding = RsaPadding::pkcs1};
    if (takes(Operation::decrypt)) {
      EXPECT_EQ(rsa.decrypt(p, v.encryption), v.message);
      // The padding is random: ours must decrypt to the message.
      EXPECT_EQ(rsa.decrypt(p, rsa.encrypt(p, v.message)), v.message);
    } else {
      // Declined (a device's own padding check is not constant time):
      // pinned, the session says so; what it encrypts, soft decrypts.
      EXPECT_THROW(rsa.decrypt(p, v.encryption), Unsupported);
      RsaSession soft(labs_key(*v.key), {.driver = "soft"});
      EXPECT_EQ(soft.decrypt(p, rsa.encrypt(p, v.message)), v.message);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 20u);
}

TEST_P(RsaKat, OaepDecrypts) {
  std::size_t checked = 0;
  std::vector<fs::path> files{rsa_dir() / "pkcs-1v2-1d2-vec" / "oaep-vect.txt"};
  for (const auto& entry : fs::directory_iterator(rsa_dir() / "oaep-custom"))
    files.push_back(entry.path());
  for (const fs::path& path : files) {
    const LabsFile file = parse_labs(path);
    bool round_tripped = false;
    for (const LabsVector* vector :
         served_sample(file.vectors, [](const LabsVector& v) { return v.key->n.size() * 8; })) {
      const LabsVector& v = *vector;
      SCOPED_TRACE(path.filename().string() + " line " + std::to_string(v.line));
      RsaSession& rsa = session(labs_key(*v.key));
      const RsaParameters p{.padding = RsaPadding::oaep,
                            .digest = digest_id(v.digest),
                            .mgf1_digest = digest_id(v.mgf1)};
      if (pkcs1_encryption_only()) {
        // Declined: pinned, the session says so.
        EXPECT_THROW(rsa.decrypt(p, v.encryption), Unsupported);
        return;
      }
      try {
        EXPECT_EQ(rsa.decrypt(p, v.encryption), v.message);
        // Our own encryption with the file's digests, decrypted back: once
        // per file (a file is one digest pair). A private-key operation
        // costs a quarter of a second on a kernel driver in the TCG guest,
        // and the encoding is the same for every message of the pair.
        if (!round_tripped) {
          EXPECT_EQ(rsa.decrypt(p, rsa.encrypt(p, v.message)), v.message);
          round_tripped = true;
        }
      } catch (const Error& e) {
        ADD_FAILURE() << e.what() << " (OAEP " << v.digest << ", MGF1 " << v.mgf1 << ")";
      }
      ++checked;
    }
  }
  // Example 10 of oaep-vect.txt and every 2048-bit example of pyca's 24
  // files; sampled, one of each file at least.
  EXPECT_GE(checked, sampling() ? 1u + 24u : 6u + 24u);
}

// No padding (RSADP, RSAEP): an OAEP ciphertext decrypts to its encoded
// message, which decodes to the vector's message, and encrypts back to the
// vector's ciphertext.
TEST_P(RsaKat, RawOperationsGiveTheOaepEncodedMessage) {
  std::size_t checked = 0;
  const RsaParameters raw{.padding = RsaPadding::none};
  for (const fs::path& path : {rsa_dir() / "pkcs-1v2-1d2-vec" / "oaep-vect.txt",
                               rsa_dir() / "oaep-custom" / "oaep-sha256-sha256.txt"}) {
    const LabsFile file = parse_labs(path);
    for (const LabsVector& v : file.vectors) {
      if (!served_size(v.key->n.size() * 8)) continue;
      SCOPED_TRACE(path.filename().string() + " line " + std::to_string(v.line));
      RsaSession& rsa = session(labs_key(*v.key));
      if (pkcs1_encryption_only()) {
        // Declined: the device pads PKCS#1 v1.5 only; pinned, the session says so.
        EXPECT_THROW(rsa.decrypt(raw, v.encryption), Unsupported);
        return;
      }
      const std::vector<std::uint8_t> em = rsa.decrypt(raw, v.encryption);
      ASSERT_EQ(em.size(), rsa.size());
      const RsaParameters oaep{.padding = RsaPadding::oaep,
                               .digest = digest_id(v.digest),
                               .mgf1_digest = digest_id(v.mgf1)};
      std::vector<std::uint8_t> message(em.size());
      std::size_t length = 0;
      ASSERT_EQ(rsa_padding::decode_encryption(oaep, em, message, length), ErrorCode::ok);
      message.resize(length);
      EXPECT_EQ(message, v.message);
      EXPECT_EQ(rsa.encrypt(raw, em), v.encryption);
      ++checked;
    }
  }
  // Example 10 of oaep-vect.txt and the ten of pyca's file.
  EXPECT_GE(checked, 6u + 10u);
}

TEST_P(RsaKat, Pkcs1SignatureSets) {
  std::size_t checked = 0;
  const LabsFile v15 = parse_labs(rsa_dir() / "pkcs1v15sign-vectors.txt");
  for (const LabsVector& v : v15.vectors) {
    if (!served_size(v.key->n.size() * 8)) continue;
    if (refuses_signatures(labs_key(*v.key))) return;
    SCOPED_TRACE("pkcs1v15sign-vectors.txt line " + std::to_string(v.line));
    RsaSession& rsa = session(labs_key(*v.key));
    const RsaParameters p{.padding = RsaPadding::pkcs1, .digest = AlgorithmId::sha1};
    const ByteVector digest = hash(AlgorithmId::sha1, v.message);
    EXPECT_EQ(rsa.sign(p, digest), v.signature);
    ++checked;
  }
  const LabsFile pss = parse_labs(rsa_dir() / "pkcs-1v2-1d2-vec" / "pss-vect.txt");
  for (const LabsVector& v : pss.vectors) {
    if (!served_size(v.key->n.size() * 8)) continue;
    SCOPED_TRACE("pss-vect.txt line " + std::to_string(v.line));
    RsaSession& rsa = session(labs_key(*v.key));
    const RsaParameters p{.padding = RsaPadding::pss,
                          .digest = AlgorithmId::sha1,
                          .mgf1_digest = AlgorithmId::sha1,
                          .salt_length = static_cast<int>(v.salt.size())};
    const ByteVector digest = hash(AlgorithmId::sha1, v.message);
    EXPECT_TRUE(rsa.verify(p, digest, v.signature));
    ++checked;
  }
  EXPECT_EQ(checked, 20u + 6u);
}

std::string driver_name(const testing::TestParamInfo<std::string>& info) {
  std::string out = info.param;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return out;
}

INSTANTIATE_TEST_SUITE_P(Drivers, RsaKat, testing::ValuesIn(rsa_drivers()), driver_name);

TEST(RsaKatFacts, SoftServesRsa) {
  const auto drivers = rsa_drivers();
  EXPECT_NE(std::find(drivers.begin(), drivers.end(), "soft"), drivers.end());
}

// The reading of /proc/crypto the keyring KATs rely on.
TEST(BestKernelRsa, TakesTheHighestPriorityThatPassedItsSelfTest) {
  std::istringstream proc_crypto(
      "name         : rsa\ndriver       : rsa-generic\nmodule       : kernel\n"
      "priority     : 100\ntype         : akcipher\nselftest     : passed\n"
      "internal     : no\n\n"
      "name         : rsa\ndriver       : virtio-crypto-rsa\nmodule       : virtio_crypto\n"
      "priority     : 150\ntype         : akcipher\nselftest     : unknown\n"
      "internal     : no\n\n"
      "name         : pkcs1pad(rsa)\ndriver       : virtio-pkcs1-rsa\n"
      "priority     : 150\ntype         : akcipher\nselftest     : passed\n\n");
  EXPECT_EQ(test_support::best_kernel_rsa(proc_crypto), "rsa-generic");
  std::istringstream passed(
      "name         : rsa\ndriver       : rsa-generic\npriority     : 100\n"
      "type         : akcipher\nselftest     : passed\n\n"
      "name         : rsa\ndriver       : virtio-crypto-rsa\npriority     : 150\n"
      "type         : akcipher\nselftest     : passed\n");  // no blank line at the end
  EXPECT_EQ(test_support::best_kernel_rsa(passed), "virtio-crypto-rsa");
  std::istringstream none("name         : sha256\ndriver       : sha256-generic\n");
  EXPECT_EQ(test_support::best_kernel_rsa(none), "");
}

// In the kernel test bed: the drivers the guest must have (comma-separated
// in CRYPTOACCEL_EXPECT_RSA_DRIVERS), so that a probe that finds nothing
// cannot pass the suite by leaving it empty. `keyring:@rsa` stands for the
// keyring instance of the kernel's best "rsa" (test_support::best_kernel_rsa()).
TEST(RsaKatFacts, TheExpectedDriversClaimRsa) {
  const char* expected = std::getenv("CRYPTOACCEL_EXPECT_RSA_DRIVERS");
  if (expected == nullptr) return;  // outside the test bed: soft only, checked above
  const auto drivers = rsa_drivers();
  std::string_view rest = expected;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string name(rest.substr(0, comma));
    if (name == "keyring:@rsa") {
      const std::string raw = test_support::best_kernel_rsa();
      ASSERT_FALSE(raw.empty()) << "/proc/crypto lists no rsa akcipher that passed its self-test";
      name = "keyring:" + raw;
    }
    EXPECT_NE(std::find(drivers.begin(), drivers.end(), name), drivers.end())
        << name << " does not claim RSA";
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
}

}  // namespace
}  // namespace cryptoaccel::kat
