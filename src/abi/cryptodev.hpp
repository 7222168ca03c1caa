// The /dev/crypto ABI of cryptodev-linux (1.14), written from the
// documented facts (ioctl numbers, struct layouts, algorithm ids). Shared by
// the cryptodev driver (a client of the ABI) and the devcrypto server (an
// implementation of it).
//
// The structs hold pointers, so the ABI has two layouts: a 64-bit program's
// (x86_64, arm64, s390x...) and a 32-bit program's (i386, armhf), whose
// structs are smaller and whose ioctl numbers therefore differ (the size is
// part of the number). Each struct is written once over its pointer type:
// Layout64 and Layout32 name both, and the unprefixed names (SessionOp,
// kCiocCrypt...) are this program's own. Pointer fields are integers: to the
// server they are addresses in another process, never to be dereferenced.
// A 64-bit server serves 32-bit programs too (cryptodev-linux's compat
// ioctls; src/devcrypto/compat.hpp).
#pragma once

#include <linux/ioctl.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>

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

// The structs, over the pointer type of one layout.
template <class Pointer>
struct Layout {
  struct SessionOp {
    std::uint32_t cipher;
    std::uint32_t mac;
    std::uint32_t keylen;
    Pointer key;
    std::uint32_t mackeylen;
    Pointer mackey;
    std::uint32_t ses;
  };

  struct CryptOp {
    std::uint32_t ses;
    std::uint16_t op;
    std::uint16_t flags;
    std::uint32_t len;
    Pointer src;
    Pointer dst;
    Pointer mac;
    Pointer iv;
  };

  struct CryptAuthOp {
    std::uint32_t ses;
    std::uint16_t op;
    std::uint16_t flags;
    std::uint32_t len;
    std::uint32_t auth_len;
    Pointer auth_src;
    Pointer src;
    Pointer dst;
    Pointer tag;
    std::uint32_t tag_len;
    Pointer iv;
    std::uint32_t iv_len;
  };

  // OCF's asymmetric interface (CIOCKEY): an operation on big numbers, each
  // a little-endian byte string of crp_nbits bits ((crp_nbits + 7) / 8
  // bytes), the inputs first, then the outputs.
  struct CrParam {
    Pointer crp_p;
    std::uint32_t crp_nbits;
  };
  static constexpr std::size_t kMaxKeyParams = 8;  // CRK_MAXPARAM
  struct CryptKop {
    std::uint32_t crk_op;
    std::uint32_t crk_status;
    std::uint16_t crk_iparams;
    std::uint16_t crk_oparams;
    std::uint32_t crk_pad1;
    CrParam crk_param[kMaxKeyParams];
  };

  static constexpr unsigned long kCiocGSession = _IOWR('c', 102, SessionOp);
  static constexpr unsigned long kCiocCrypt = _IOWR('c', 104, CryptOp);
  static constexpr unsigned long kCiocKey = _IOWR('c', 105, CryptKop);
  static constexpr unsigned long kCiocAuthCrypt = _IOWR('c', 109, CryptAuthOp);
  // The asynchronous interface: queue a CIOCCRYPT request, fetch the oldest
  // completed one (EBUSY when none is).
  static constexpr unsigned long kCiocAsyncCrypt = _IOW('c', 110, CryptOp);
  static constexpr unsigned long kCiocAsyncFetch = _IOR('c', 111, CryptOp);
};

using Layout64 = Layout<std::uint64_t>;
using Layout32 = Layout<std::uint32_t>;
// This program's own layout.
using NativeLayout = std::conditional_t<sizeof(void*) == 8, Layout64, Layout32>;
static_assert(sizeof(void*) == 8 || sizeof(void*) == 4);

// Whether `test` holds for either layout: `test` is a lambda templated on
// the layout, [&]<class L>() { return cmd == L::kCiocCrypt; }, so that a
// question about a command is written once for both.
template <class Test>
bool in_either_layout(Test test) {
  return test.template operator()<Layout64>() || test.template operator()<Layout32>();
}

// A CryptOp in the other layout, field by field; a pointer too wide for a
// 32-bit one is cut as the kernel's ptr_to_compat() cuts it.
template <class To, class From>
typename To::CryptOp relaid(const typename From::CryptOp& op) {
  using P = decltype(To::CryptOp::src);
  return {.ses = op.ses,
          .op = op.op,
          .flags = op.flags,
          .len = op.len,
          .src = static_cast<P>(op.src),
          .dst = static_cast<P>(op.dst),
          .mac = static_cast<P>(op.mac),
          .iv = static_cast<P>(op.iv)};
}

using SessionOp = NativeLayout::SessionOp;
using CryptOp = NativeLayout::CryptOp;
using CryptAuthOp = NativeLayout::CryptAuthOp;
using CrParam = NativeLayout::CrParam;
using CryptKop = NativeLayout::CryptKop;
inline constexpr std::size_t kMaxKeyParams = NativeLayout::kMaxKeyParams;

struct AlgInfo {
  char cra_name[kMaxAlgorithmName];
  char cra_driver_name[kMaxAlgorithmName];
};

// The same in both layouts: it holds no pointer.
struct SessionInfoOp {
  std::uint32_t ses;
  AlgInfo cipher_info;
  AlgInfo hash_info;
  std::uint16_t alignmask;
  std::uint32_t flags;
};

// The ioctls of this program's layout; those without a pointer in their
// struct have one number in both.
inline constexpr unsigned long kCiocGSession = NativeLayout::kCiocGSession;
inline constexpr unsigned long kCiocFSession = _IOW('c', 103, std::uint32_t);
inline constexpr unsigned long kCiocCrypt = NativeLayout::kCiocCrypt;
inline constexpr unsigned long kCiocGSessInfo = _IOWR('c', 107, SessionInfoOp);
inline constexpr unsigned long kCiocAuthCrypt = NativeLayout::kCiocAuthCrypt;
// Clones the descriptor (OpenBSD's CRIOGET; cryptodev-linux answers a dup).
inline constexpr unsigned long kCrioGet = _IOWR('c', 101, std::uint32_t);
// The asymmetric operations offered (a bit mask; cryptodev-linux has none).
inline constexpr unsigned long kCiocAsymFeat = _IOR('c', 106, std::uint32_t);
inline constexpr unsigned long kCiocAsyncCrypt = NativeLayout::kCiocAsyncCrypt;
inline constexpr unsigned long kCiocAsyncFetch = NativeLayout::kCiocAsyncFetch;
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
inline constexpr unsigned long kCiocKey = NativeLayout::kCiocKey;

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

// The documented layouts, whatever machine compiles this: a compiler or
// header change that moves a field breaks the build, not a client. The
// 32-bit numbers are those of i386 and armhf alike (both align 32-bit
// fields to 4 and have 32-bit pointers; no struct here holds a 64-bit
// integer, whose alignment differs between the two).
namespace layout_checks {
using L = Layout64;
static_assert(sizeof(L::SessionOp) == 48 && offsetof(L::SessionOp, key) == 16 &&
              offsetof(L::SessionOp, mackeylen) == 24 && offsetof(L::SessionOp, mackey) == 32 &&
              offsetof(L::SessionOp, ses) == 40);
static_assert(sizeof(L::CryptOp) == 48 && offsetof(L::CryptOp, len) == 8 &&
              offsetof(L::CryptOp, src) == 16 && offsetof(L::CryptOp, dst) == 24 &&
              offsetof(L::CryptOp, mac) == 32 && offsetof(L::CryptOp, iv) == 40);
static_assert(sizeof(L::CryptAuthOp) == 72 && offsetof(L::CryptAuthOp, auth_len) == 12 &&
              offsetof(L::CryptAuthOp, auth_src) == 16 && offsetof(L::CryptAuthOp, src) == 24 &&
              offsetof(L::CryptAuthOp, dst) == 32 && offsetof(L::CryptAuthOp, tag) == 40 &&
              offsetof(L::CryptAuthOp, tag_len) == 48 && offsetof(L::CryptAuthOp, iv) == 56 &&
              offsetof(L::CryptAuthOp, iv_len) == 64);
static_assert(sizeof(L::CrParam) == 16 && sizeof(L::CryptKop) == 144 &&
              offsetof(L::CryptKop, crk_iparams) == 8 && offsetof(L::CryptKop, crk_oparams) == 10 &&
              offsetof(L::CryptKop, crk_param) == 16);

using S = Layout32;
static_assert(sizeof(S::SessionOp) == 28 && offsetof(S::SessionOp, key) == 12 &&
              offsetof(S::SessionOp, mackeylen) == 16 && offsetof(S::SessionOp, mackey) == 20 &&
              offsetof(S::SessionOp, ses) == 24);
static_assert(sizeof(S::CryptOp) == 28 && offsetof(S::CryptOp, len) == 8 &&
              offsetof(S::CryptOp, src) == 12 && offsetof(S::CryptOp, dst) == 16 &&
              offsetof(S::CryptOp, mac) == 20 && offsetof(S::CryptOp, iv) == 24);
static_assert(sizeof(S::CryptAuthOp) == 44 && offsetof(S::CryptAuthOp, auth_len) == 12 &&
              offsetof(S::CryptAuthOp, auth_src) == 16 && offsetof(S::CryptAuthOp, src) == 20 &&
              offsetof(S::CryptAuthOp, dst) == 24 && offsetof(S::CryptAuthOp, tag) == 28 &&
              offsetof(S::CryptAuthOp, tag_len) == 32 && offsetof(S::CryptAuthOp, iv) == 36 &&
              offsetof(S::CryptAuthOp, iv_len) == 40);
static_assert(sizeof(S::CrParam) == 8 && sizeof(S::CryptKop) == 80 &&
              offsetof(S::CryptKop, crk_iparams) == 8 && offsetof(S::CryptKop, crk_oparams) == 10 &&
              offsetof(S::CryptKop, crk_param) == 16);

static_assert(sizeof(SessionInfoOp) == 268 && offsetof(SessionInfoOp, alignmask) == 260 &&
              offsetof(SessionInfoOp, flags) == 264);

// The numbers as Linux encodes them on x86, ARM, s390 and most others
// (asm-generic/ioctl.h); PowerPC, MIPS and SPARC encode the direction
// otherwise, and their numbers follow from the same sizes.
#if _IOC_SIZEBITS == 14 && _IOC_WRITE == 1U && _IOC_READ == 2U
static_assert(L::kCiocGSession == 0xc0306366 && L::kCiocCrypt == 0xc0306368 &&
              L::kCiocAuthCrypt == 0xc048636d && L::kCiocKey == 0xc0906369 &&
              L::kCiocAsyncCrypt == 0x4030636e && L::kCiocAsyncFetch == 0x8030636f);
static_assert(S::kCiocGSession == 0xc01c6366 && S::kCiocCrypt == 0xc01c6368 &&
              S::kCiocAuthCrypt == 0xc02c636d && S::kCiocKey == 0xc0506369 &&
              S::kCiocAsyncCrypt == 0x401c636e && S::kCiocAsyncFetch == 0x801c636f);
static_assert(kCiocFSession == 0x40046367 && kCiocGSessInfo == 0xc10c636b &&
              kCrioGet == 0xc0046365 && kCiocAsymFeat == 0x8004636a &&
              kCiocCopyHash == 0x40086370);
#endif
}  // namespace layout_checks

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
