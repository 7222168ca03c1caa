#include "vector_loader.hpp"

#include "build_paths.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <string>

namespace cryptoaccel::kat {
namespace {

namespace fs = std::filesystem;
using A = AlgorithmId;

constexpr const char* kDefaultRoot = "/usr/lib/python3/dist-packages/cryptography_vectors";
// A repeated message (the million 'a') is built in memory up to this size.
constexpr std::size_t kMaxRepeatedMessage = std::size_t{64} << 20;

// How a file's records map onto vectors.
enum class Family : std::uint8_t {
  block_cipher,  // AES ECB/CBC (CAVP) and CTR (RFC 3686): KEY, IV, PLAINTEXT, CIPHERTEXT
  xts,           // XTSGenAES: Key, i, PT, CT, DataUnitLen (bits)
  gcm_encrypt,   // gcmEncryptExtIV: Key, IV, PT, AAD, CT, Tag
  gcm_decrypt,   // gcmDecrypt: Key, IV, CT, AAD, Tag, then PT or FAIL
  chacha,        // OpenSSL's and BoringSSL's spellings of key, nonce, AD, in, out, tag
  chacha20,      // RFC 7539 A.2: KEY, NONCE, INITIAL_BLOCK_COUNTER, PLAINTEXT, CIPHERTEXT
  tdes,          // TCBC: KEY1..3 or KEYs, IV, PLAINTEXT, CIPHERTEXT
  message,       // Len (bits), [Key,] Msg, [Repeat,] MD: SHAVS, RFC 1321/2202/2286/4231
  monte,         // SHAVS Monte: Seed, then COUNT/MD checkpoints
};

// Where a file lives: Debian's python3-cryptography-vectors (vectors_root()),
// or tests/data for the few vectors that package does not ship.
enum class Root : std::uint8_t { package, project };

struct Source {
  std::string file;  // relative to the root
  Family family;
  Root root = Root::package;
};

std::string bits_of(AlgorithmId id) {
  return std::to_string(algorithm(id).key_size.min * 8);
}

std::vector<Source> aes_cavp(AlgorithmId id, const std::string& mode /* "ECB" or "CBC" */) {
  std::vector<Source> out;
  for (const char* kind : {"GFSbox", "KeySbox", "VarKey", "VarTxt", "MMT"})
    out.push_back(
        {"ciphers/AES/" + mode + "/" + mode + kind + bits_of(id) + ".rsp", Family::block_cipher});
  return out;
}

std::vector<Source> tdes() {
  std::vector<Source> out;
  // TCBCI* are the interleaved (TCBC-I) mode, which is not CBC: left out.
  for (const char* kind :
       {"MMT1", "MMT2", "MMT3", "invperm", "permop", "subtab", "varkey", "vartext"})
    out.push_back({std::string("ciphers/3DES/CBC/TCBC") + kind + ".rsp", Family::tdes});
  return out;
}

std::vector<Source> shavs(const std::string& dir, const std::string& stem) {
  const std::string base = "hashes/" + dir + "/" + stem;
  return {{base + "ShortMsg.rsp", Family::message},
          {base + "LongMsg.rsp", Family::message},
          {base + "Monte.rsp", Family::monte}};
}

// No default case: a new AlgorithmId must be given its vectors here (or an
// explicit empty list), which -Wswitch -Werror enforces.
std::vector<Source> sources(AlgorithmId id) {
  switch (id) {
    case A::aes_128_ecb:
    case A::aes_192_ecb:
    case A::aes_256_ecb:
      return aes_cavp(id, "ECB");
    case A::aes_128_cbc:
    case A::aes_192_cbc:
    case A::aes_256_cbc:
      return aes_cavp(id, "CBC");
    case A::aes_128_ctr:
    case A::aes_192_ctr:
    case A::aes_256_ctr:
      return {{"ciphers/AES/CTR/aes-" + bits_of(id) + "-ctr.txt", Family::block_cipher}};
    case A::aes_128_xts:
      return {{"ciphers/AES/XTS/tweak-128hexstr/XTSGenAES128.rsp", Family::xts}};
    case A::aes_256_xts:
      return {{"ciphers/AES/XTS/tweak-128hexstr/XTSGenAES256.rsp", Family::xts}};
    case A::aes_128_gcm:
    case A::aes_192_gcm:
    case A::aes_256_gcm:
      return {{"ciphers/AES/GCM/gcmEncryptExtIV" + bits_of(id) + ".rsp", Family::gcm_encrypt},
              {"ciphers/AES/GCM/gcmDecrypt" + bits_of(id) + ".rsp", Family::gcm_decrypt}};
    case A::chacha20:
      return {{"ciphers/ChaCha20/rfc7539.txt", Family::chacha20}};
    case A::chacha20_poly1305:
      return {{"ciphers/ChaCha20Poly1305/openssl.txt", Family::chacha},
              {"ciphers/ChaCha20Poly1305/boringssl.txt", Family::chacha}};
    case A::des_cbc:
    case A::des_ede3_cbc:
      return tdes();
    case A::md5:
      return {{"hashes/MD5/rfc-1321.txt", Family::message}};
    case A::sha1:
      return shavs("SHA1", "SHA1");
    case A::sha224:
      return shavs("SHA2", "SHA224");
    case A::sha256:
      return shavs("SHA2", "SHA256");
    case A::sha384:
      return shavs("SHA2", "SHA384");
    case A::sha512:
      return shavs("SHA2", "SHA512");
    case A::ripemd160:
      // The authors' set: eight short messages in the package, the million
      // 'a' in tests/data.
      return {{"hashes/ripemd160/ripevectors.txt", Family::message},
              {"ripemd160-million-a.txt", Family::message, Root::project}};
    case A::hmac_md5:
      return {{"HMAC/rfc-2202-md5.txt", Family::message}};
    case A::hmac_sha1:
      return {{"HMAC/rfc-2202-sha1.txt", Family::message}};
    case A::hmac_sha224:
      return {{"HMAC/rfc-4231-sha224.txt", Family::message}};
    case A::hmac_sha256:
      return {{"HMAC/rfc-4231-sha256.txt", Family::message}};
    case A::hmac_sha384:
      return {{"HMAC/rfc-4231-sha384.txt", Family::message}};
    case A::hmac_sha512:
      return {{"HMAC/rfc-4231-sha512.txt", Family::message}};
    case A::hmac_ripemd160:
      return {{"HMAC/rfc-2286-ripemd160.txt", Family::message}};
    // RSA's files have families of their own: tests/kat/rsa_kat_test.cpp.
    case A::rsa2048:
    case A::rsa3072:
    case A::rsa4096:
    case A::count:
      break;
  }
  return {};
}

// Loads one file's records into `result`, reporting problems against the
// file and line they come from.
class FileLoader {
 public:
  FileLoader(AlgorithmId id, const Source& source, LoadedVectors& result)
      : id_(id), alg_(algorithm(id)), source_(source), result_(result) {}

  void load(const std::vector<RspRecord>& records) {
    const std::size_t before = result_.vectors.size();
    for (const RspRecord& r : records) {
      switch (source_.family) {
        case Family::block_cipher:
          block_cipher(r);
          break;
        case Family::xts:
          xts(r);
          break;
        case Family::gcm_encrypt:
          gcm(r, Direction::encrypt);
          break;
        case Family::gcm_decrypt:
          gcm(r, Direction::decrypt);
          break;
        case Family::chacha:
          chacha(r);
          break;
        case Family::chacha20:
          chacha20(r);
          break;
        case Family::tdes:
          tdes(r);
          break;
        case Family::message:
          message(r);
          break;
        case Family::monte:
          monte(r);
          break;
      }
    }
    // A file that yields nothing has changed format under us; single DES
    // takes only some TCBC files' vectors, so it is exempt.
    if (result_.vectors.size() == before && skipped_ == 0 && id_ != A::des_cbc)
      result_.errors.push_back(source_.file + ": no vectors found (format changed?)");
    if (skipped_ != 0) result_.skipped.push_back({source_.file, skipped_, skip_reason_});
  }

 private:
  std::string where(const RspRecord& r) const {
    return source_.file + ":" + std::to_string(r.line);
  }

  void error(const RspRecord& r, const std::string& what) {
    result_.errors.push_back(where(r) + ": " + what);
  }

  void skip(std::string reason) {
    ++skipped_;
    skip_reason_ = std::move(reason);
  }

  // Decodes the first present field of `names` into `out`; reports and
  // returns false when it is missing or not hex.
  bool bytes(const RspRecord& r, std::initializer_list<std::string_view> names, ByteVector& out) {
    const std::string* value = r.value(names);
    if (value == nullptr) {
      error(r, "missing field " + std::string(*names.begin()));
      return false;
    }
    auto decoded = rsp_bytes(*value);
    if (!decoded) {
      error(r, "field " + std::string(*names.begin()) + " is not hex: '" + *value + "'");
      return false;
    }
    out = std::move(*decoded);
    return true;
  }

  bool number(const RspRecord& r, std::string_view name, std::size_t& out) {
    const RspField* f = r.field(name);
    if (f == nullptr) {
      error(r, "missing field " + std::string(name));
      return false;
    }
    try {
      std::size_t used = 0;
      out = std::stoul(f->value, &used);
      if (used == f->value.size()) return true;
    } catch (const std::exception&) {
    }
    error(r, "field " + std::string(name) + " is not a number: '" + f->value + "'");
    return false;
  }

  bool direction(const RspRecord& r, Direction& out) {
    if (equal_ignoring_case(r.section, "ENCRYPT")) {
      out = Direction::encrypt;
      return true;
    }
    if (equal_ignoring_case(r.section, "DECRYPT")) {
      out = Direction::decrypt;
      return true;
    }
    error(r, "record outside an [ENCRYPT] or [DECRYPT] section ('" + r.section + "')");
    return false;
  }

  KatVector base(const RspRecord& r, VectorKind kind) const {
    return KatVector{.algorithm = id_, .kind = kind, .source = where(r)};
  }

  // Plaintext and ciphertext become in/out according to the direction.
  void add_cipher(KatVector v, Direction d, ByteVector plain, ByteVector cipher) {
    v.direction = d;
    v.in = std::move(d == Direction::encrypt ? plain : cipher);
    v.out = std::move(d == Direction::encrypt ? cipher : plain);
    result_.vectors.push_back(std::move(v));
  }

  void block_cipher(const RspRecord& r) {
    KatVector v = base(r, VectorKind::cipher);
    ByteVector pt, ct;
    Direction d{};
    if (!direction(r, d) || !bytes(r, {"KEY"}, v.key) || !bytes(r, {"PLAINTEXT"}, pt) ||
        !bytes(r, {"CIPHERTEXT"}, ct))
      return;
    if (alg_.mode != CipherMode::ecb && !bytes(r, {"IV"}, v.iv)) return;
    if (pt.size() != ct.size()) return error(r, "PLAINTEXT and CIPHERTEXT differ in length");
    // RFC 3686 lists encryptions only. CTR decryption applies the same
    // keystream, so each vector also runs the other way to cover that path.
    if (alg_.mode == CipherMode::ctr) {
      const bool enc = d == Direction::encrypt;
      KatVector inverse = v;
      inverse.source += " reversed";
      add_cipher(std::move(inverse), enc ? Direction::decrypt : Direction::encrypt, pt, ct);
    }
    add_cipher(std::move(v), d, std::move(pt), std::move(ct));
  }

  void xts(const RspRecord& r) {
    KatVector v = base(r, VectorKind::cipher);
    ByteVector pt, ct;
    Direction d{};
    std::size_t bits = 0;
    if (!direction(r, d) || !number(r, "DataUnitLen", bits)) return;
    // The API takes bytes: a data unit of 130 bits cannot be expressed.
    if (bits % 8 != 0) return skip("DataUnitLen is not a multiple of 8 bits");
    if (!bytes(r, {"Key"}, v.key) || !bytes(r, {"i"}, v.iv) || !bytes(r, {"PT"}, pt) ||
        !bytes(r, {"CT"}, ct))
      return;
    if (pt.size() != bits / 8 || ct.size() != bits / 8)
      return error(r, "PT/CT length does not match DataUnitLen");
    add_cipher(std::move(v), d, std::move(pt), std::move(ct));
  }

  void gcm(const RspRecord& r, Direction d) {
    KatVector v = base(r, VectorKind::aead);
    ByteVector pt, ct;
    if (!bytes(r, {"Key"}, v.key) || !bytes(r, {"IV"}, v.iv) || !bytes(r, {"AAD"}, v.aad) ||
        !bytes(r, {"CT"}, ct) || !bytes(r, {"Tag"}, v.tag))
      return;
    if (d == Direction::decrypt && r.has_flag("FAIL")) {
      v.expect_auth_failure = true;
      // The plaintext a correct implementation must never release.
      pt.assign(ct.size(), 0);
    } else if (!bytes(r, {"PT"}, pt)) {
      return;
    }
    if (pt.size() != ct.size()) return error(r, "PT and CT differ in length");
    add_cipher(std::move(v), d, std::move(pt), std::move(ct));
  }

  void chacha(const RspRecord& r) {
    KatVector v = base(r, VectorKind::aead);
    ByteVector pt, ct;
    if (!bytes(r, {"Key"}, v.key) || !bytes(r, {"IV", "NONCE"}, v.iv) ||
        !bytes(r, {"AAD", "AD"}, v.aad) || !bytes(r, {"Plaintext", "IN"}, pt) ||
        !bytes(r, {"Ciphertext", "CT"}, ct) || !bytes(r, {"Tag"}, v.tag))
      return;
    if (pt.size() != ct.size()) return error(r, "plaintext and ciphertext differ in length");
    if (const std::string* result = r.value({"Result"})) {
      // OpenSSL's evpciph format: the tag is wrong and the final step fails.
      if (*result != "CIPHERFINAL_ERROR") return error(r, "unknown Result '" + *result + "'");
      v.expect_auth_failure = true;
      std::fill(pt.begin(), pt.end(), 0);
      return add_cipher(std::move(v), Direction::decrypt, std::move(pt), std::move(ct));
    }
    // These files give one message for both directions: seal and open it.
    KatVector open = v;
    add_cipher(std::move(v), Direction::encrypt, pt, ct);
    add_cipher(std::move(open), Direction::decrypt, std::move(pt), std::move(ct));
  }

  // The IV is OpenSSL's and the kernel's 16 bytes: the block counter as a
  // little-endian 32-bit word, then the 12-byte nonce.
  void chacha20(const RspRecord& r) {
    KatVector v = base(r, VectorKind::cipher);
    ByteVector nonce, pt, ct;
    std::size_t counter = 0;
    if (!bytes(r, {"KEY"}, v.key) || !bytes(r, {"NONCE"}, nonce) ||
        !number(r, "INITIAL_BLOCK_COUNTER", counter) || !bytes(r, {"PLAINTEXT"}, pt) ||
        !bytes(r, {"CIPHERTEXT"}, ct))
      return;
    if (nonce.size() != 12) return error(r, "NONCE must be 12 bytes");
    if (counter > 0xffffffff) return error(r, "INITIAL_BLOCK_COUNTER exceeds 32 bits");
    if (pt.size() != ct.size()) return error(r, "PLAINTEXT and CIPHERTEXT differ in length");
    for (int shift = 0; shift < 32; shift += 8)
      v.iv.push_back(static_cast<std::uint8_t>(counter >> shift));
    v.iv.insert(v.iv.end(), nonce.begin(), nonce.end());
    // Encryptions only; decryption applies the same keystream: both run.
    KatVector inverse = v;
    add_cipher(std::move(v), Direction::encrypt, pt, ct);
    add_cipher(std::move(inverse), Direction::decrypt, std::move(pt), std::move(ct));
  }

  void tdes(const RspRecord& r) {
    KatVector v = base(r, VectorKind::cipher);
    ByteVector pt, ct;
    Direction d{};
    if (!direction(r, d) || !bytes(r, {"IV"}, v.iv) || !bytes(r, {"PLAINTEXT"}, pt) ||
        !bytes(r, {"CIPHERTEXT"}, ct))
      return;
    ByteVector k1, k2, k3;
    if (r.field("KEYs") != nullptr) {
      if (!bytes(r, {"KEYs"}, k1)) return;
      k2 = k3 = k1;
    } else if (!bytes(r, {"KEY1"}, k1) || !bytes(r, {"KEY2"}, k2) || !bytes(r, {"KEY3"}, k3)) {
      return;
    }
    if (k1.size() != 8 || k2.size() != 8 || k3.size() != 8)
      return error(r, "DES keys must be 8 bytes");
    if (pt.size() != ct.size()) return error(r, "PLAINTEXT and CIPHERTEXT differ in length");
    if (id_ == A::des_cbc) {
      // EDE with three equal keys is single DES: E(k) D(k) E(k) = E(k).
      if (k1 != k2 || k2 != k3) return;
      v.key = k1;
    } else {
      v.key = k1;
      v.key.insert(v.key.end(), k2.begin(), k2.end());
      v.key.insert(v.key.end(), k3.begin(), k3.end());
    }
    add_cipher(std::move(v), d, std::move(pt), std::move(ct));
  }

  void message(const RspRecord& r) {
    const bool mac = alg_.kind == AlgorithmKind::mac;
    KatVector v = base(r, mac ? VectorKind::mac : VectorKind::digest);
    std::size_t bits = 0;
    ByteVector msg;
    if (!number(r, "Len", bits)) return;
    if (bits % 8 != 0) return skip("Len is not a multiple of 8 bits");
    if (!bytes(r, {"Msg"}, msg) || !bytes(r, {"MD"}, v.out)) return;
    if (mac && !bytes(r, {"Key"}, v.key)) return;
    // Repeat = N: the message is Msg N times over (Len counts all of it).
    if (r.field("Repeat") != nullptr) {
      std::size_t times = 0;
      if (!number(r, "Repeat", times)) return;
      if (times == 0 || msg.empty() || times > kMaxRepeatedMessage / msg.size())
        return error(r, "Repeat must be at least 1 and the message at most " +
                            std::to_string(kMaxRepeatedMessage) + " bytes");
      ByteVector whole;
      whole.reserve(msg.size() * times);
      for (std::size_t i = 0; i < times; ++i) whole.insert(whole.end(), msg.begin(), msg.end());
      msg = std::move(whole);
    }
    // SHAVS writes the empty message as "Len = 0, Msg = 00".
    if (msg.size() < bits / 8 || (bits != 0 && msg.size() != bits / 8))
      return error(r, "Msg length does not match Len");
    msg.resize(bits / 8);
    v.in = std::move(msg);
    result_.vectors.push_back(std::move(v));
  }

  void monte(const RspRecord& r) {
    if (r.field("Seed") != nullptr) {
      have_seed_ = bytes(r, {"Seed"}, seed_);
      return;
    }
    if (!have_seed_) return error(r, "Monte checkpoint before any Seed");
    KatVector v = base(r, VectorKind::monte);
    std::size_t count = 0;
    if (!number(r, "COUNT", count) || !bytes(r, {"MD"}, v.out)) return;
    v.source = source_.file + "#COUNT=" + std::to_string(count);
    // SHAVS seeds each checkpoint with the previous one's digest. Taking the
    // expected value keeps one wrong checkpoint from failing all after it.
    v.in = seed_;
    seed_ = v.out;
    result_.vectors.push_back(std::move(v));
  }

  AlgorithmId id_;
  const Algorithm& alg_;
  const Source& source_;
  LoadedVectors& result_;
  std::size_t skipped_ = 0;
  std::string skip_reason_;
  ByteVector seed_;
  bool have_seed_ = false;
};

}  // namespace

std::string_view to_string(VectorKind kind) noexcept {
  switch (kind) {
    case VectorKind::cipher:
      return "cipher";
    case VectorKind::aead:
      return "aead";
    case VectorKind::digest:
      return "digest";
    case VectorKind::mac:
      return "mac";
    case VectorKind::monte:
      return "monte";
  }
  return "?";
}

std::size_t LoadedVectors::skipped_count() const noexcept {
  std::size_t n = 0;
  for (const SkippedVectors& s : skipped) n += s.count;
  return n;
}

fs::path vectors_root() {
  const char* env = std::getenv("CRYPTOACCEL_VECTORS_DIR");
  return fs::path(env != nullptr && *env != '\0' ? env : kDefaultRoot);
}

fs::path project_vectors_root() {
  return build_paths::kProjectVectors;
}

std::vector<std::string> vector_files(AlgorithmId id) {
  std::vector<std::string> out;
  for (const Source& s : sources(id)) out.push_back(s.file);
  return out;
}

LoadedVectors load_vectors(AlgorithmId id, const fs::path& root) {
  LoadedVectors result;
  if (!fs::is_directory(root)) {
    result.errors.push_back("vector directory " + root.string() +
                            " not found: install the Debian package "
                            "python3-cryptography-vectors or set CRYPTOACCEL_VECTORS_DIR");
    return result;
  }
  for (const Source& source : sources(id)) {
    std::vector<RspRecord> records;
    try {
      records = parse_rsp_file((source.root == Root::project ? project_vectors_root() : root) /
                               source.file);
    } catch (const std::exception& e) {
      result.errors.push_back(e.what());
      continue;
    }
    FileLoader(id, source, result).load(records);
  }
  return result;
}

}  // namespace cryptoaccel::kat
