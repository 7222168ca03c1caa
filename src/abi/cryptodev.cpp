#include "cryptodev.hpp"

#include <iterator>

namespace cryptoaccel::cryptodev {
namespace {

using A = AlgorithmId;

struct Row {
  AlgorithmId id;
  AbiIds ids;
  const char* generic;
};

// One row per algorithm of ours that the ABI names; AES key sizes share an id
// and are told apart by the key length.
constexpr Row kRows[] = {
    {A::aes_128_ecb, {kAesEcb, 0}, "ecb(aes)"},
    {A::aes_192_ecb, {kAesEcb, 0}, "ecb(aes)"},
    {A::aes_256_ecb, {kAesEcb, 0}, "ecb(aes)"},
    {A::aes_128_cbc, {kAesCbc, 0}, "cbc(aes)"},
    {A::aes_192_cbc, {kAesCbc, 0}, "cbc(aes)"},
    {A::aes_256_cbc, {kAesCbc, 0}, "cbc(aes)"},
    {A::aes_128_ctr, {kAesCtr, 0}, "ctr(aes)"},
    {A::aes_192_ctr, {kAesCtr, 0}, "ctr(aes)"},
    {A::aes_256_ctr, {kAesCtr, 0}, "ctr(aes)"},
    {A::aes_128_xts, {kAesXts, 0}, "xts(aes)"},
    {A::aes_256_xts, {kAesXts, 0}, "xts(aes)"},
    {A::aes_128_gcm, {kAesGcm, 0}, "gcm(aes)"},
    {A::aes_192_gcm, {kAesGcm, 0}, "gcm(aes)"},
    {A::aes_256_gcm, {kAesGcm, 0}, "gcm(aes)"},
    {A::des_cbc, {kDesCbc, 0}, "cbc(des)"},
    {A::des_ede3_cbc, {k3desCbc, 0}, "cbc(des3_ede)"},
    {A::md5, {0, kMd5}, "md5"},
    {A::sha1, {0, kSha1}, "sha1"},
    {A::sha224, {0, kSha224}, "sha224"},
    {A::sha256, {0, kSha256}, "sha256"},
    {A::sha384, {0, kSha384}, "sha384"},
    {A::sha512, {0, kSha512}, "sha512"},
    {A::ripemd160, {0, kRipemd160}, "rmd160"},
    {A::hmac_md5, {0, kMd5Hmac}, "hmac(md5)"},
    {A::hmac_sha1, {0, kSha1Hmac}, "hmac(sha1)"},
    {A::hmac_sha224, {0, kSha224Hmac}, "hmac(sha224)"},
    {A::hmac_sha256, {0, kSha256Hmac}, "hmac(sha256)"},
    {A::hmac_sha384, {0, kSha384Hmac}, "hmac(sha384)"},
    {A::hmac_sha512, {0, kSha512Hmac}, "hmac(sha512)"},
    {A::hmac_ripemd160, {0, kRipemd160Hmac}, "hmac(rmd160)"},
};

// An algorithm the ABI does not name (ChaCha20) has no row; one it names
// has one, in AlgorithmId order, so that a new algorithm's place is plain.
constexpr bool rows_follow_id_order() {
  for (std::size_t i = 1; i < std::size(kRows); ++i)
    if (index_of(kRows[i - 1].id) >= index_of(kRows[i].id)) return false;
  return true;
}
static_assert(rows_follow_id_order(), "kRows: at most one row per algorithm, in AlgorithmId order");

const Row* row_of(AlgorithmId id) noexcept {
  for (const Row& r : kRows)
    if (r.id == id) return &r;
  return nullptr;
}

}  // namespace

std::optional<AbiIds> ids_of(AlgorithmId id) noexcept {
  if (const Row* r = row_of(id)) return r->ids;
  return std::nullopt;
}

std::optional<AlgorithmId> algorithm_of(std::uint32_t cipher, std::uint32_t keylen,
                                        std::uint32_t mac) noexcept {
  if ((cipher == 0) == (mac == 0)) return std::nullopt;
  for (const Row& r : kRows) {
    if (r.ids.cipher != cipher || r.ids.mac != mac) continue;
    if (cipher != 0 && !algorithm(r.id).key_size.contains(keylen)) continue;
    return r.id;
  }
  return std::nullopt;
}

const char* generic_name(AlgorithmId id) noexcept {
  const Row* r = row_of(id);
  return r != nullptr ? r->generic : "";
}

}  // namespace cryptoaccel::cryptodev
