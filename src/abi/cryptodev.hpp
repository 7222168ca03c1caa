// The /dev/crypto ABI of cryptodev-linux (1.14), x86_64, written from the
// documented facts (ioctl numbers, struct layouts, algorithm ids). Shared by
// the cryptodev driver (a client of the ABI) and the devcrypto server (an
// implementation of it). Pointer fields are kept as 64-bit integers: to the
// server they are addresses in another process, never to be dereferenced.
#pragma once

#include <linux/ioctl.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "cryptoaccel/algorithm.hpp"

namespace cryptoaccel::cryptodev {

// Algorithm ids (cryptodev.h's enum cryptodev_crypto_op_t).
enum : std::uint32_t {
  kDesCbc = 1,
  k3desCbc = 2,
  kMd5Hmac = 6,
  kSha1Hmac = 7,
  kRipemd160Hmac = 8,
  kAesCbc = 11,
  kMd5 = 13,
  kSha1 = 14,
  kNull = 16,
  kSha256Hmac = 18,
  kSha384Hmac = 19,
  kSha512Hmac = 20,
  kAesCtr = 21,
  kAesXts = 22,
  kAesEcb = 23,
  kAesGcm = 50,
  kRipemd160 = 102,
  kSha224 = 103,
  kSha256 = 104,
  kSha384 = 105,
  kSha512 = 106,
  kSha224Hmac = 107,
};

enum : std::uint16_t { kEncrypt = 0, kDecrypt = 1 };

// crypt_op / crypt_auth_op flags.
enum : std::uint16_t {
  kFlagUpdate = 1,
  kFlagFinal = 2,
  kFlagWriteIv = 4,
  kFlagNoZeroCopy = 8,
  kFlagAeadTls = 16,
  kFlagAeadSrtp = 32,
  kFlagReset = 64,
};

inline constexpr std::size_t kMaxCipherKey = 64;  // CRYPTO_CIPHER_MAX_KEY_LEN
inline constexpr std::size_t kMaxHmacKey = 512;   // CRYPTO_HMAC_MAX_KEY_LEN
inline constexpr std::size_t kMaxAlgorithmName = 64;
inline constexpr std::uint32_t kSessionInfoHardware = 1;  // SIOP_FLAG_KERNEL_DRIVER_ONLY

struct SessionOp {
  std::uint32_t cipher;
  std::uint32_t mac;
  std::uint32_t keylen;
  std::uint64_t key;
  std::uint32_t mackeylen;
  std::uint64_t mackey;
  std::uint32_t ses;
};

struct CryptOp {
  std::uint32_t ses;
  std::uint16_t op;
  std::uint16_t flags;
  std::uint32_t len;
  std::uint64_t src;
  std::uint64_t dst;
  std::uint64_t mac;
  std::uint64_t iv;
};

struct CryptAuthOp {
  std::uint32_t ses;
  std::uint16_t op;
  std::uint16_t flags;
  std::uint32_t len;
  std::uint32_t auth_len;
  std::uint64_t auth_src;
  std::uint64_t src;
  std::uint64_t dst;
  std::uint64_t tag;
  std::uint32_t tag_len;
  std::uint64_t iv;
  std::uint32_t iv_len;
};

struct AlgInfo {
  char cra_name[kMaxAlgorithmName];
  char cra_driver_name[kMaxAlgorithmName];
};

struct SessionInfoOp {
  std::uint32_t ses;
  AlgInfo cipher_info;
  AlgInfo hash_info;
  std::uint16_t alignmask;
  std::uint32_t flags;
};

inline constexpr unsigned long kCiocGSession = _IOWR('c', 102, SessionOp);
inline constexpr unsigned long kCiocFSession = _IOW('c', 103, std::uint32_t);
inline constexpr unsigned long kCiocCrypt = _IOWR('c', 104, CryptOp);
inline constexpr unsigned long kCiocGSessInfo = _IOWR('c', 107, SessionInfoOp);
inline constexpr unsigned long kCiocAuthCrypt = _IOWR('c', 109, CryptAuthOp);
// Clones the descriptor (OpenBSD's CRIOGET; cryptodev-linux answers a dup).
inline constexpr unsigned long kCrioGet = _IOWR('c', 101, std::uint32_t);
// The asymmetric operations offered (a bit mask; cryptodev-linux has none).
inline constexpr unsigned long kCiocAsymFeat = _IOR('c', 106, std::uint32_t);
// The asynchronous interface: queue a CIOCCRYPT request, fetch the oldest
// completed one (EBUSY when none is).
inline constexpr unsigned long kCiocAsyncCrypt = _IOW('c', 110, CryptOp);
inline constexpr unsigned long kCiocAsyncFetch = _IOR('c', 111, CryptOp);
// Copies the running hash of one session into another.
struct CopyHashOp {
  std::uint32_t dst_ses;
  std::uint32_t src_ses;
};
inline constexpr unsigned long kCiocCopyHash = _IOW('c', 112, CopyHashOp);
// The most asynchronous requests one open file may have queued
// (cryptodev-linux's MAX_COP_RINGSIZE); then EBUSY.
inline constexpr std::size_t kMaxAsyncRequests = 64;
// SRTP mode: src lies at most this far into auth_src (MAX_SRTP_AUTH_DATA_DIFF).
inline constexpr std::size_t kMaxSrtpOffset = 256;

// OCF's asymmetric interface (CIOCKEY): an operation on big numbers, each
// a little-endian byte string of crp_nbits bits ((crp_nbits + 7) / 8 bytes),
// the inputs first, then the outputs.
struct CrParam {
  std::uint64_t crp_p;
  std::uint32_t crp_nbits;
};
inline constexpr std::size_t kMaxKeyParams = 8;  // CRK_MAXPARAM
struct CryptKop {
  std::uint32_t crk_op;
  std::uint32_t crk_status;
  std::uint16_t crk_iparams;
  std::uint16_t crk_oparams;
  std::uint32_t crk_pad1;
  CrParam crk_param[kMaxKeyParams];
};
// crk_op values (CRK_*) and the CIOCASYMFEAT bits that offer them (CRF_*).
enum : std::uint32_t {
  kKeyModExp = 0,     // base, exponent, modulus -> base^exponent mod modulus
  kKeyModExpCrt = 1,  // x, p, q, dP, dQ, qInv -> x^d mod pq
  kKeyDsaSign = 2,
  kKeyDsaVerify = 3,
  kKeyDhComputeKey = 4,
};
inline constexpr std::uint32_t kFeatureModExp = 1u << kKeyModExp;
inline constexpr std::uint32_t kFeatureModExpCrt = 1u << kKeyModExpCrt;
inline constexpr unsigned long kCiocKey = _IOWR('c', 105, CryptKop);

// The documented layout; a compiler or header change that moves a field
// breaks the build, not a client.
static_assert(sizeof(SessionOp) == 48 && offsetof(SessionOp, key) == 16 &&
              offsetof(SessionOp, mackeylen) == 24 && offsetof(SessionOp, mackey) == 32 &&
              offsetof(SessionOp, ses) == 40);
static_assert(sizeof(CryptOp) == 48 && offsetof(CryptOp, len) == 8 &&
              offsetof(CryptOp, src) == 16 && offsetof(CryptOp, dst) == 24 &&
              offsetof(CryptOp, mac) == 32 && offsetof(CryptOp, iv) == 40);
static_assert(sizeof(CryptAuthOp) == 72 && offsetof(CryptAuthOp, auth_len) == 12 &&
              offsetof(CryptAuthOp, auth_src) == 16 && offsetof(CryptAuthOp, src) == 24 &&
              offsetof(CryptAuthOp, dst) == 32 && offsetof(CryptAuthOp, tag) == 40 &&
              offsetof(CryptAuthOp, tag_len) == 48 && offsetof(CryptAuthOp, iv) == 56 &&
              offsetof(CryptAuthOp, iv_len) == 64);
static_assert(sizeof(SessionInfoOp) == 268 && offsetof(SessionInfoOp, alignmask) == 260 &&
              offsetof(SessionInfoOp, flags) == 264);
static_assert(kCiocGSession == 0xc0306366 && kCiocFSession == 0x40046367 &&
              kCiocCrypt == 0xc0306368 && kCiocGSessInfo == 0xc10c636b &&
              kCiocAuthCrypt == 0xc048636d);
static_assert(kCrioGet == 0xc0046365 && kCiocAsymFeat == 0x8004636a &&
              kCiocAsyncCrypt == 0x4030636e && kCiocAsyncFetch == 0x8030636f &&
              kCiocCopyHash == 0x40086370);
static_assert(sizeof(CrParam) == 16 && sizeof(CryptKop) == 144 &&
              offsetof(CryptKop, crk_iparams) == 8 && offsetof(CryptKop, crk_oparams) == 10 &&
              offsetof(CryptKop, crk_param) == 16 && kCiocKey == 0xc0906369);

// The cryptodev ids of one of our algorithms: {cipher, mac}, one of them 0.
struct AbiIds {
  std::uint32_t cipher = 0;
  std::uint32_t mac = 0;
};

// Null for algorithms the ABI has no id for (ChaCha20, ChaCha20-Poly1305).
std::optional<AbiIds> ids_of(AlgorithmId id) noexcept;

// Our algorithm for a session request: the cipher id with its key length, or
// the mac id. Null when the pair names nothing we know (cryptodev-linux
// answers EINVAL then).
std::optional<AlgorithmId> algorithm_of(std::uint32_t cipher, std::uint32_t keylen,
                                        std::uint32_t mac) noexcept;

// The kernel's generic name of an algorithm ("cbc(aes)", "hmac(sha256)"),
// which CIOCGSESSINFO reports as cra_name.
const char* generic_name(AlgorithmId id) noexcept;

}  // namespace cryptoaccel::cryptodev
