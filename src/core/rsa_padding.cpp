// RFC 8017's encodings: EMSA-PKCS1-v1_5 and EMSA-PSS for signatures,
// EME-PKCS1-v1_5 and EME-OAEP for encryption, MGF1 under both. Hashes and
// random bytes come from the library's own OpenSSL context.
#include "cryptoaccel/driver/rsa_padding.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "openssl_context.hpp"

namespace cryptoaccel::rsa_padding {
namespace {

using Bytes = std::span<const std::uint8_t>;
using ByteVector = std::vector<std::uint8_t>;
constexpr std::size_t kMaxHash = 64;

// ---- hashing ----------------------------------------------------------------

const EVP_MD* md_of(AlgorithmId id) noexcept {
  static std::array<std::atomic<EVP_MD*>, kAlgorithmCount> fetched{};
  if (index_of(id) >= kAlgorithmCount || algorithm(id).kind != AlgorithmKind::digest)
    return nullptr;
  std::atomic<EVP_MD*>& slot = fetched[index_of(id)];
  if (EVP_MD* md = slot.load(std::memory_order_acquire)) return md;
  try {
    EVP_MD* md = EVP_MD_fetch(detail::openssl_context(),
                              std::string(algorithm(id).openssl_name).c_str(), nullptr);
    if (md == nullptr) return nullptr;
    EVP_MD* expected = nullptr;
    // Kept for the process; a thread that lost the race frees its own.
    if (!slot.compare_exchange_strong(expected, md, std::memory_order_acq_rel)) {
      EVP_MD_free(md);
      return expected;
    }
    return md;
  } catch (...) {
    return nullptr;
  }
}

std::size_t hash_size(AlgorithmId id) noexcept {
  return index_of(id) < kAlgorithmCount ? algorithm(id).output_size : 0;
}

// Hash of the concatenated parts into `out` (hash_size bytes).
bool hash(AlgorithmId id, std::initializer_list<Bytes> parts, std::uint8_t* out) noexcept {
  const EVP_MD* md = md_of(id);
  EVP_MD_CTX* ctx = md != nullptr ? EVP_MD_CTX_new() : nullptr;
  bool ok = ctx != nullptr && EVP_DigestInit_ex2(ctx, md, nullptr) == 1;
  for (Bytes part : parts) ok = ok && EVP_DigestUpdate(ctx, part.data(), part.size()) == 1;
  unsigned int n = 0;
  ok = ok && EVP_DigestFinal_ex(ctx, out, &n) == 1;
  EVP_MD_CTX_free(ctx);
  return ok;
}

// MGF1 (RFC 8017 B.2.1): `mask` ^= MGF1(seed, mask.size()).
bool mgf1_xor(AlgorithmId id, Bytes seed, std::span<std::uint8_t> mask) noexcept {
  const std::size_t h = hash_size(id);
  std::array<std::uint8_t, kMaxHash> block{};
  for (std::uint32_t counter = 0, done = 0; done < mask.size(); ++counter) {
    const std::array<std::uint8_t, 4> c{
        static_cast<std::uint8_t>(counter >> 24), static_cast<std::uint8_t>(counter >> 16),
        static_cast<std::uint8_t>(counter >> 8), static_cast<std::uint8_t>(counter)};
    if (!hash(id, {seed, c}, block.data())) return false;
    for (std::size_t i = 0; i < h && done < mask.size(); ++i, ++done) mask[done] ^= block[i];
  }
  secure_wipe(block.data(), block.size());
  return true;
}

bool random_bytes(std::span<std::uint8_t> out) noexcept {
  try {
    return out.empty() || RAND_bytes_ex(detail::openssl_context(), out.data(), out.size(), 0) == 1;
  } catch (...) {
    return false;
  }
}

// ---- constant-time helpers ----------------------------------------------------

// All ones when x is zero, else zero.
inline std::uint32_t is_zero(std::uint32_t x) noexcept {
  return 0u - ((~x & (x - 1)) >> 31);
}
inline std::uint32_t equal(std::uint32_t a, std::uint32_t b) noexcept {
  return is_zero(a ^ b);
}
// a < b, both below 2^31.
inline std::uint32_t less(std::uint32_t a, std::uint32_t b) noexcept {
  return 0u - ((a - b) >> 31);
}
inline std::uint32_t select(std::uint32_t mask, std::uint32_t a, std::uint32_t b) noexcept {
  return (mask & a) | (~mask & b);
}

// Moves buf[shift..] to the front (zeros behind), in time independent of
// the secret `shift`: log2(n) passes, each moving by one power of two or not.
void shift_left(std::span<std::uint8_t> buf, std::uint32_t shift) noexcept {
  const std::size_t n = buf.size();
  for (std::size_t step = 1, bit = 0; step < n; step <<= 1, ++bit) {
    const std::uint32_t mask = 0u - ((shift >> bit) & 1u);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t next = i + step < n ? buf[i + step] : 0;
      buf[i] = static_cast<std::uint8_t>(select(mask, next, buf[i]));
    }
  }
}

// ---- DigestInfo -----------------------------------------------------------------

// DER of an OID in dotted form ("2.16.840.1.101.3.4.2.1"), without tag and length.
bool oid_der(std::string_view dotted, ByteVector& out) {
  std::vector<std::uint64_t> arcs;
  std::uint64_t value = 0;
  bool digit = false;
  for (const char c : dotted) {
    if (c == '.') {
      if (!digit) return false;
      arcs.push_back(value);
      value = 0;
      digit = false;
    } else if (c >= '0' && c <= '9') {
      value = value * 10 + static_cast<std::uint64_t>(c - '0');
      digit = true;
    } else {
      return false;
    }
  }
  if (!digit) return false;
  arcs.push_back(value);
  if (arcs.size() < 2) return false;
  std::vector<std::uint64_t> encoded{arcs[0] * 40 + arcs[1]};
  encoded.insert(encoded.end(), arcs.begin() + 2, arcs.end());
  for (const std::uint64_t arc : encoded) {
    std::array<std::uint8_t, 10> base128{};
    std::size_t n = 0;
    std::uint64_t v = arc;
    do {
      base128[n++] = static_cast<std::uint8_t>(v & 0x7f);
      v >>= 7;
    } while (v != 0);
    while (n-- > 0) out.push_back(static_cast<std::uint8_t>(base128[n] | (n != 0 ? 0x80 : 0)));
  }
  return true;
}

// RFC 8017 9.2's T: DigestInfo ::= SEQUENCE { SEQUENCE { OID, NULL }, OCTET STRING digest }.
bool digest_info(AlgorithmId id, Bytes digest, ByteVector& out) {
  ByteVector oid;
  if (!oid_der(algorithm(id).oid, oid) || oid.size() > 100 || digest.size() > kMaxHash)
    return false;
  const std::size_t algorithm_length = 2 + oid.size() + 2;
  const std::size_t total = 2 + algorithm_length + 2 + digest.size();
  out = {0x30, static_cast<std::uint8_t>(total),
         0x30, static_cast<std::uint8_t>(algorithm_length),
         0x06, static_cast<std::uint8_t>(oid.size())};
  out.insert(out.end(), oid.begin(), oid.end());
  out.insert(out.end(), {0x05, 0x00, 0x04, static_cast<std::uint8_t>(digest.size())});
  out.insert(out.end(), digest.begin(), digest.end());
  return true;
}

// ---- signatures -----------------------------------------------------------------

ErrorCode encode_pkcs1_signature(const RsaParameters& p, Bytes digest, std::span<std::uint8_t> em) {
  ByteVector t;
  if (p.digest == kNoDigest)
    t.assign(digest.begin(), digest.end());
  else if (!digest_info(p.digest, digest, t))
    return ErrorCode::invalid_argument;
  if (t.size() + 11 > em.size()) return ErrorCode::invalid_length;
  em[0] = 0x00;
  em[1] = 0x01;
  std::fill(em.begin() + 2, em.end() - static_cast<std::ptrdiff_t>(t.size()) - 1, 0xff);
  em[em.size() - t.size() - 1] = 0x00;
  std::copy(t.begin(), t.end(), em.end() - static_cast<std::ptrdiff_t>(t.size()));
  return ErrorCode::ok;
}

// The salt length a signature is made with (RFC 8017's sLen).
std::size_t salt_for_signing(const RsaParameters& p, std::size_t em_length, std::size_t h) {
  if (p.salt_length == kSaltDigestLength) return h;
  if (p.salt_length == kSaltMaximum || p.salt_length == kSaltAuto)
    return em_length >= h + 2 ? em_length - h - 2 : 0;
  return static_cast<std::size_t>(p.salt_length);
}

// EMSA-PSS-ENCODE (RFC 8017 9.1.1), emBits = modBits - 1, into the last
// emLen bytes of `em` (a leading zero byte when modBits is 8k + 1).
ErrorCode encode_pss(const RsaParameters& p, Bytes digest, std::size_t modulus_bits,
                     std::span<std::uint8_t> em) {
  const std::size_t h = hash_size(p.digest), em_bits = modulus_bits - 1,
                    em_length = (em_bits + 7) / 8;
  if (digest.size() != h || em_length > em.size()) return ErrorCode::invalid_length;
  const std::size_t salt_length = salt_for_signing(p, em_length, h);
  if (em_length < h + salt_length + 2) return ErrorCode::invalid_length;
  std::fill(em.begin(), em.end(), 0);
  const std::span<std::uint8_t> out = em.last(em_length);
  ByteVector salt(salt_length);
  if (!random_bytes(salt)) return ErrorCode::driver_failure;
  const std::size_t db_length = em_length - h - 1;
  const std::span<std::uint8_t> db = out.first(db_length), hash_out = out.subspan(db_length, h);
  static constexpr std::array<std::uint8_t, 8> kZeros{};
  if (!hash(p.digest, {kZeros, digest, salt}, hash_out.data())) return ErrorCode::driver_failure;
  db[db_length - salt_length - 1] = 0x01;
  std::copy(salt.begin(), salt.end(), db.end() - static_cast<std::ptrdiff_t>(salt_length));
  if (!mgf1_xor(p.mgf1_digest, hash_out, db)) return ErrorCode::driver_failure;
  db[0] &= static_cast<std::uint8_t>(0xff >> (8 * em_length - em_bits));
  out[em_length - 1] = 0xbc;
  return ErrorCode::ok;
}

// EMSA-PSS-VERIFY (RFC 8017 9.1.2); kSaltAuto recovers the salt's length.
bool verify_pss(const RsaParameters& p, Bytes digest, std::size_t modulus_bits, Bytes em) {
  const std::size_t h = hash_size(p.digest), em_bits = modulus_bits - 1,
                    em_length = (em_bits + 7) / 8;
  if (digest.size() != h || em_length > em.size() || em_length < h + 2) return false;
  for (std::size_t i = 0; i < em.size() - em_length; ++i)
    if (em[i] != 0) return false;
  const Bytes in = em.last(em_length);
  if (in[em_length - 1] != 0xbc) return false;
  const std::uint8_t top_mask = static_cast<std::uint8_t>(0xff << (8 - (8 * em_length - em_bits)));
  if ((in[0] & top_mask) != 0 && 8 * em_length != em_bits) return false;
  const std::size_t db_length = em_length - h - 1;
  ByteVector db(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(db_length));
  const Bytes hash_in = in.subspan(db_length, h);
  if (!mgf1_xor(p.mgf1_digest, hash_in, db)) return false;
  db[0] &= static_cast<std::uint8_t>(0xff >> (8 * em_length - em_bits));
  std::size_t one = 0;
  while (one < db_length && db[one] == 0) ++one;
  if (one == db_length || db[one] != 0x01) return false;
  const std::size_t salt_length = db_length - one - 1;
  if (p.salt_length != kSaltAuto && salt_length != salt_for_signing(p, em_length, h)) return false;
  std::array<std::uint8_t, kMaxHash> expected{};
  static constexpr std::array<std::uint8_t, 8> kZeros{};
  if (!hash(p.digest, {kZeros, digest, Bytes(db).last(salt_length)}, expected.data())) return false;
  return constant_time_equal(Bytes(expected).first(h), hash_in);
}

// ---- encryption -----------------------------------------------------------------

ErrorCode encode_pkcs1_encryption(Bytes message, std::span<std::uint8_t> em) {
  const std::size_t k = em.size();
  if (message.size() + 11 > k) return ErrorCode::invalid_length;
  em[0] = 0x00;
  em[1] = 0x02;
  const std::span<std::uint8_t> ps = em.subspan(2, k - message.size() - 3);
  if (!random_bytes(ps)) return ErrorCode::driver_failure;
  // Nonzero octets (RFC 8017 7.2.1 step 2b): zeros are drawn again.
  for (std::uint8_t& b : ps)
    while (b == 0)
      if (!random_bytes({&b, 1})) return ErrorCode::driver_failure;
  em[k - message.size() - 1] = 0x00;
  std::copy(message.begin(), message.end(), em.end() - static_cast<std::ptrdiff_t>(message.size()));
  return ErrorCode::ok;
}

ErrorCode encode_oaep(const RsaParameters& p, Bytes message, std::span<std::uint8_t> em) {
  const std::size_t k = em.size(), h = hash_size(p.digest);
  if (h == 0 || k < 2 * h + 2 || message.size() > k - 2 * h - 2) return ErrorCode::invalid_length;
  std::fill(em.begin(), em.end(), 0);
  const std::span<std::uint8_t> seed = em.subspan(1, h), db = em.subspan(1 + h);
  if (!hash(p.digest, {p.label}, db.data())) return ErrorCode::driver_failure;
  db[db.size() - message.size() - 1] = 0x01;
  std::copy(message.begin(), message.end(), db.end() - static_cast<std::ptrdiff_t>(message.size()));
  if (!random_bytes(seed) || !mgf1_xor(p.mgf1_digest, seed, db) ||
      !mgf1_xor(p.mgf1_digest, db, seed))
    return ErrorCode::driver_failure;
  return ErrorCode::ok;
}

// EME-PKCS1-v1_5 decoding in constant time: 00 02, at least eight nonzero
// padding bytes, 00, the message.
std::uint32_t decode_pkcs1(std::span<std::uint8_t> em, std::uint32_t& start) {
  const auto k = static_cast<std::uint32_t>(em.size());
  std::uint32_t good = is_zero(em[0]) & equal(em[1], 2);
  std::uint32_t looking = ~0u, zero_at = 0;
  for (std::uint32_t i = 2; i < k; ++i) {
    const std::uint32_t zero = is_zero(em[i]);
    zero_at = select(looking & zero, i, zero_at);
    looking &= ~zero;
  }
  good &= ~looking;               // a zero separator was found
  good &= ~less(zero_at, 2 + 8);  // after at least eight padding bytes
  start = zero_at + 1;
  return good;
}

// EME-OAEP decoding (RFC 8017 7.1.2 step 3) in constant time; unmasks in place.
std::uint32_t decode_oaep(const RsaParameters& p, std::span<std::uint8_t> em,
                          std::uint32_t& start) {
  const std::size_t k = em.size(), h = hash_size(p.digest);
  std::array<std::uint8_t, kMaxHash> label_hash{};
  if (h == 0 || k < 2 * h + 2 || !hash(p.digest, {p.label}, label_hash.data())) return 0;
  const std::span<std::uint8_t> seed = em.subspan(1, h), db = em.subspan(1 + h);
  if (!mgf1_xor(p.mgf1_digest, db, seed) || !mgf1_xor(p.mgf1_digest, seed, db)) return 0;
  std::uint32_t good = is_zero(em[0]);
  std::uint32_t difference = 0;
  for (std::size_t i = 0; i < h; ++i) difference |= db[i] ^ label_hash[i];
  good &= is_zero(difference);
  std::uint32_t looking = ~0u, one_at = 0;
  for (std::uint32_t i = static_cast<std::uint32_t>(h); i < db.size(); ++i) {
    const std::uint32_t one = equal(db[i], 1), zero = is_zero(db[i]);
    one_at = select(looking & one, i, one_at);
    good &= ~(looking & ~one & ~zero);  // neither padding nor separator
    looking &= ~one;
  }
  good &= ~looking;
  start = static_cast<std::uint32_t>(1 + h) + one_at + 1;
  return good;
}

}  // namespace

ErrorCode encode_signature(const RsaParameters& p, std::span<const std::uint8_t> digest,
                           std::size_t modulus_bits, std::span<std::uint8_t> em) noexcept {
  try {
    if (modulus_bits < 512 || (modulus_bits + 7) / 8 != em.size()) return ErrorCode::invalid_length;
    switch (p.padding) {
      case RsaPadding::pkcs1:
        return encode_pkcs1_signature(p, digest, em);
      case RsaPadding::pss:
        return encode_pss(p, digest, modulus_bits, em);
      case RsaPadding::oaep:
      case RsaPadding::none:
        break;
    }
    return ErrorCode::invalid_argument;
  } catch (...) {
    return ErrorCode::driver_failure;
  }
}

bool verify_signature(const RsaParameters& p, std::span<const std::uint8_t> digest,
                      std::size_t modulus_bits, std::span<const std::uint8_t> em) noexcept {
  try {
    if (modulus_bits < 512 || (modulus_bits + 7) / 8 != em.size()) return false;
    if (p.padding == RsaPadding::pss) return verify_pss(p, digest, modulus_bits, em);
    if (p.padding != RsaPadding::pkcs1) return false;
    ByteVector expected(em.size());
    return encode_pkcs1_signature(p, digest, expected) == ErrorCode::ok &&
           constant_time_equal(expected, em);
  } catch (...) {
    return false;
  }
}

ErrorCode encode_encryption(const RsaParameters& p, std::span<const std::uint8_t> message,
                            std::span<std::uint8_t> em) noexcept {
  try {
    switch (p.padding) {
      case RsaPadding::pkcs1:
        return encode_pkcs1_encryption(message, em);
      case RsaPadding::oaep:
        return encode_oaep(p, message, em);
      case RsaPadding::none:
        // RSAEP's input is the message itself, a whole modulus long.
        if (message.size() != em.size()) return ErrorCode::invalid_length;
        std::copy(message.begin(), message.end(), em.begin());
        return ErrorCode::ok;
      case RsaPadding::pss:
        break;
    }
    return ErrorCode::invalid_argument;
  } catch (...) {
    return ErrorCode::driver_failure;
  }
}

ErrorCode decode_encryption(const RsaParameters& p, std::span<const std::uint8_t> em,
                            std::span<std::uint8_t> out, std::size_t& length) noexcept {
  length = 0;
  if (out.size() < em.size() || em.size() < 11 || p.padding == RsaPadding::pss)
    return ErrorCode::invalid_length;
  if (p.padding == RsaPadding::none) {  // RSADP's output is the message
    std::copy(em.begin(), em.end(), out.begin());
    std::fill(out.begin() + static_cast<std::ptrdiff_t>(em.size()), out.end(), 0);
    length = em.size();
    return ErrorCode::ok;
  }
  std::span<std::uint8_t> work = out.first(em.size());
  std::copy(em.begin(), em.end(), work.begin());
  std::uint32_t start = 0;
  const std::uint32_t good =
      p.padding == RsaPadding::pkcs1 ? decode_pkcs1(work, start) : decode_oaep(p, work, start);
  const auto k = static_cast<std::uint32_t>(work.size());
  // A bad padding shifts by nothing in particular and is then wiped.
  start = select(good, start, 0);
  shift_left(work, start);
  const std::uint32_t message_length = k - start;
  // Wipe everything past the message; everything when the padding was bad.
  for (std::uint32_t i = 0; i < k; ++i)
    work[i] = static_cast<std::uint8_t>(work[i] & (good & less(i, message_length)));
  if (out.size() > work.size()) std::fill(out.begin() + work.size(), out.end(), 0);
  if (good == 0) return ErrorCode::decryption_failed;
  length = message_length;
  return ErrorCode::ok;
}

}  // namespace cryptoaccel::rsa_padding
