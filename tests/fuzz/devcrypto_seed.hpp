// A valid request sequence in the input format of devcrypto_check.hpp: the
// seed that the deterministic run mutates and that the libFuzzer entry can
// write as a first corpus file. Sessions of every kind are created, used
// (CBC with an IV and then without, a streamed SHA-256, HMAC, GCM seal and
// open), asked about, freed and bounded, and a client closes its file;
// CIOCKEY runs both modular exponentiations on a tiny RSA key and is
// refused DSA.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "devcrypto_check.hpp"

namespace cryptoaccel::fuzz {

class SeedWriter {
 public:
  // Pointers in the seed are offsets; kMapPointers makes them addresses.
  static constexpr std::uint64_t kKey = 0x1000, kIv = 0x2000, kAad = 0x3000, kSrc = 0x10000,
                                 kDst = 0x20000, kOut = 0x28000, kMac = 0x30000;

  // An ioctl step: the struct at memory offset `where` * 4.
  // Steps from now on as a 32-bit program's (devcrypto_check.hpp: `what` + 11).
  void narrow(bool on) { narrow_ = on; }
  template <class Op>
  void ioctl(std::uint8_t what, std::uint8_t flags, const Op& op, std::uint16_t where,
             int known = -1) {
    bytes_.push_back(static_cast<std::uint8_t>(what + (narrow_ ? 11 : 0)));
    bytes_.push_back(
        static_cast<std::uint8_t>(flags | kMapPointers | (known >= 0 ? kKnownSession : 0)));
    push(&where, sizeof where);
    push(&op, sizeof op);
    if (known >= 0) bytes_.push_back(static_cast<std::uint8_t>(known));
    if (flags & kChangeStruct) bytes_.push_back(8);  // CryptOp::len: 32 becomes 33
  }
  // An ioctl step that first writes `fill` to memory offset `fill_at` (a
  // multiple of 4, at most 255 bytes).
  template <class Op>
  void ioctl_after_fill(std::uint8_t what, const Op& op, std::uint16_t where, std::uint32_t fill_at,
                        const std::vector<std::uint8_t>& fill) {
    bytes_.push_back(static_cast<std::uint8_t>(what + (narrow_ ? 11 : 0)));
    bytes_.push_back(kMapPointers | kFill);
    const auto at = static_cast<std::uint16_t>(fill_at / 4);
    push(&at, sizeof at);
    bytes_.push_back(static_cast<std::uint8_t>(fill.size()));
    push(fill.data(), fill.size());
    push(&where, sizeof where);
    push(&op, sizeof op);
  }
  void reopen(bool on_b) {
    bytes_.push_back(6);
    bytes_.push_back(on_b ? kOnB : 0);
    bytes_.push_back(0x10);
    bytes_.push_back(0x27);
  }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }

 private:
  void push(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
  }
  std::vector<std::uint8_t> bytes_;
  bool narrow_ = false;
};

// The seed in layout `L`: Layout64 (devcrypto_seed()) or Layout32, whose
// steps are a 32-bit program's (devcrypto_seed32()).
template <class L>
inline std::vector<std::uint8_t> devcrypto_seed_in() {
  using namespace cryptodev;
  using SessionOp = typename L::SessionOp;
  using CryptOp = typename L::CryptOp;
  using CryptAuthOp = typename L::CryptAuthOp;
  using CryptKop = typename L::CryptKop;
  using P = decltype(CryptOp::src);
  using W = SeedWriter;
  W w;
  w.narrow(std::is_same_v<L, Layout32>);
  // Known ids, in the order the server gives them: 0 CBC, 1 SHA-256, 2 HMAC, 3 GCM.
  w.ioctl(0, 0, SessionOp{.cipher = kAesCbc, .keylen = 16, .key = W::kKey}, 0x40);
  w.ioctl(1, 0,
          CryptOp{.op = kEncrypt,
                  .flags = kFlagWriteIv,
                  .len = 64,
                  .src = W::kSrc,
                  .dst = W::kDst,
                  .iv = W::kIv},
          0x50, 0);
  w.ioctl(1, 0, CryptOp{.op = kDecrypt, .len = 64, .src = W::kDst, .dst = W::kOut}, 0x50, 0);
  w.ioctl(4, 0, SessionInfoOp{}, 0x60, 0);
  w.ioctl(0, 0, SessionOp{.mac = kSha256}, 0x40);
  w.ioctl(1, 0, CryptOp{.op = kEncrypt, .flags = kFlagUpdate, .len = 100, .src = W::kSrc}, 0x50, 1);
  w.ioctl(1, 0, CryptOp{.op = kEncrypt, .flags = kFlagFinal, .mac = W::kMac}, 0x50, 1);
  w.ioctl(0, 0, SessionOp{.mac = kSha256Hmac, .mackeylen = 32, .mackey = W::kKey}, 0x40);
  w.ioctl(1, 0, CryptOp{.op = kEncrypt, .len = 200, .src = W::kSrc, .mac = W::kMac}, 0x50, 2);
  w.ioctl(0, kOnB, SessionOp{.cipher = kAesGcm, .keylen = 16, .key = W::kKey}, 0x40);
  w.ioctl(2, kOnB,
          CryptAuthOp{.op = kEncrypt,
                      .len = 64,
                      .auth_len = 16,
                      .auth_src = W::kAad,
                      .src = W::kSrc,
                      .dst = W::kDst,
                      .tag_len = 16,
                      .iv = W::kIv,
                      .iv_len = 12},
          0x70, 3);
  w.ioctl(2, kOnB,
          CryptAuthOp{.op = kDecrypt,
                      .len = 80,
                      .auth_len = 16,
                      .auth_src = W::kAad,
                      .src = W::kDst,
                      .dst = W::kOut,
                      .iv = W::kIv,
                      .iv_len = 12},
          0x70, 3);
  // A struct changed between the rounds of a request: EINVAL.
  w.ioctl(1, kChangeStruct,
          CryptOp{.op = kEncrypt, .len = 32, .src = W::kSrc, .dst = W::kDst, .iv = W::kIv}, 0x50,
          0);
  // A frees its CBC session (twice: ENOENT); B fills its bound of 4 (ENOSPC),
  // which fills the quota of 6, so that A is refused with ENOMEM.
  w.ioctl(3, 0, std::uint32_t{0}, 0x80, 0);
  w.ioctl(3, 0, std::uint32_t{0}, 0x80, 0);
  for (int i = 0; i < 5; ++i)
    w.ioctl(0, kOnB, SessionOp{.cipher = kAesCtr, .keylen = 32, .key = W::kKey}, 0x40);
  w.ioctl(0, 0, SessionOp{.cipher = kAesXts, .keylen = 32, .key = W::kKey}, 0x40);
  w.reopen(true);
  w.ioctl(0, 0, SessionOp{.cipher = kAesEcb, .keylen = 24, .key = W::kKey}, 0x40);
  w.ioctl(0, kOnB, SessionOp{.cipher = k3desCbc, .keylen = 24, .key = W::kKey}, 0x40);
  // CIOCKEY on RFC 8017's tiny key (n 3233 = 61 * 53, e 17, d 2753), its
  // numbers little-endian, two bytes apart: MOD_EXP 65^17 mod 3233, then
  // CRT x = 65, p, q, dP 53, dQ 49, qInv 38; then DSA, which is refused.
  constexpr std::uint32_t kNumbers = 0x4000;
  const auto at = [](std::uint32_t offset) { return static_cast<P>(kNumbers + offset); };
  CryptKop mod_exp{.crk_op = kKeyModExp, .crk_iparams = 3, .crk_oparams = 1};
  const std::uint32_t mod_exp_bits[] = {7, 5, 12, 16};
  for (std::uint32_t i = 0; i < 4; ++i) mod_exp.crk_param[i] = {at(2 * i), mod_exp_bits[i]};
  w.ioctl_after_fill(10, mod_exp, 0x90, kNumbers,
                     {0x41, 0,    17, 0,    0xa1, 0x0c, 0, 0,    0x41, 0, 0x3d,
                      0,    0x35, 0,  0x35, 0,    0x31, 0, 0x26, 0,    0, 0});
  CryptKop crt{.crk_op = kKeyModExpCrt, .crk_iparams = 6, .crk_oparams = 1};
  const std::uint32_t crt_bits[] = {7, 6, 6, 6, 6, 6, 16};
  for (std::uint32_t i = 0; i < 7; ++i) crt.crk_param[i] = {at(8 + 2 * i), crt_bits[i]};
  w.ioctl(10, 0, crt, 0x90);
  w.ioctl(10, 0, CryptKop{.crk_op = kKeyDsaSign, .crk_iparams = 5, .crk_oparams = 2}, 0x90);
  return w.bytes();
}

inline std::vector<std::uint8_t> devcrypto_seed() {
  return devcrypto_seed_in<cryptodev::Layout64>();
}

// The same sequence as a 32-bit program's, then asynchronous requests
// queued in one layout and fetched in the other through the same file.
inline std::vector<std::uint8_t> devcrypto_seed32() {
  using namespace cryptodev;
  std::vector<std::uint8_t> bytes = devcrypto_seed_in<Layout32>();
  SeedWriter w;
  using W = SeedWriter;
  // A: a CBC session in 32-bit layout (known id 9 after the seed's 9).
  w.narrow(true);
  w.ioctl(0, 0, Layout32::SessionOp{.cipher = kAesCbc, .keylen = 16, .key = W::kKey}, 0x40);
  w.ioctl(8, 0,
          Layout32::CryptOp{
              .op = kEncrypt, .len = 64, .src = W::kSrc, .dst = W::kDst, .iv = W::kIv},
          0x50, 9);
  w.narrow(false);
  w.ioctl(9, 0, Layout64::CryptOp{}, 0x58);
  w.ioctl(8, 0,
          Layout64::CryptOp{
              .op = kDecrypt, .len = 64, .src = W::kDst, .dst = W::kOut, .iv = W::kIv},
          0x50, 9);
  w.narrow(true);
  w.ioctl(9, 0, Layout32::CryptOp{}, 0x58);
  bytes.insert(bytes.end(), w.bytes().begin(), w.bytes().end());
  return bytes;
}

}  // namespace cryptoaccel::fuzz
