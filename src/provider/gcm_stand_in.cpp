#include "gcm_stand_in.hpp"

#include <array>

#include "cryptoaccel/driver/secret_bytes.hpp"
#include "openssl_default.hpp"

namespace cryptoaccel::provider {
namespace {

constexpr std::size_t kBlock = 16;

// Wipes the key-derived values of a stand-in (H, its inverse, E_K(J0), the
// GHASH states) when it goes.
struct Wiped {
  std::array<GcmField, 8> values{};
  ~Wiped() { secure_wipe(values.data(), sizeof values); }
};

// x * h^e, e public (a block count): square and multiply.
GcmField times_power(GcmField x, GcmField h, std::uint64_t e) noexcept {
  GcmField power = h;
  while (e != 0) {
    if (e & 1) x = gcm_multiply(x, power);
    e >>= 1;
    if (e != 0) power = gcm_multiply(power, power);
  }
  secure_wipe(&power, sizeof power);
  return x;
}

// GHASH's state after `data`, zero-padded to whole blocks, from `x`.
GcmField ghash(GcmField x, GcmField h, Bytes data) noexcept {
  for (std::size_t at = 0; at < data.size(); at += kBlock) {
    std::array<std::uint8_t, kBlock> block{};
    const std::size_t n = std::min(kBlock, data.size() - at);
    std::copy(data.begin() + static_cast<std::ptrdiff_t>(at),
              data.begin() + static_cast<std::ptrdiff_t>(at + n), block.begin());
    x = gcm_multiply(x ^ GcmField::from(block.data()), h);
  }
  return x;
}

GcmField lengths(std::uint64_t first_bytes, std::uint64_t second_bytes) noexcept {
  return {first_bytes * 8, second_bytes * 8};
}

// E_K of two blocks: H (of the zero block) and E_K(J0).
void encrypt_blocks(const EVP_CIPHER* ecb, Bytes key, std::uint8_t* blocks) {
  CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
  int n = 0;
  if (!ctx || EVP_CipherInit_ex2(ctx.get(), ecb, key.data(), nullptr, 1, nullptr) != 1 ||
      EVP_CIPHER_CTX_set_padding(ctx.get(), 0) != 1 ||
      EVP_EncryptUpdate(ctx.get(), blocks, &n, blocks, 2 * kBlock) != 1 || n != 2 * kBlock)
    throw DriverFailure("OpenSSL's default provider refused AES-ECB for a GCM replay");
}

}  // namespace

GcmField GcmField::from(const std::uint8_t* b) noexcept {
  GcmField f;
  for (int i = 0; i < 8; ++i) {
    f.hi = f.hi << 8 | b[i];
    f.lo = f.lo << 8 | b[8 + i];
  }
  return f;
}

void GcmField::to(std::uint8_t* b) const noexcept {
  for (int i = 0; i < 8; ++i) {
    b[i] = static_cast<std::uint8_t>(hi >> (56 - 8 * i));
    b[8 + i] = static_cast<std::uint8_t>(lo >> (56 - 8 * i));
  }
}

// SP 800-38D, Algorithm 1, with masks instead of branches.
GcmField gcm_multiply(GcmField x, GcmField y) noexcept {
  GcmField z, v = y;
  for (int i = 0; i < 128; ++i) {
    const std::uint64_t word = i < 64 ? x.hi : x.lo;
    const std::uint64_t bit = (word >> (63 - (i & 63))) & 1;
    const std::uint64_t take = 0 - bit;
    z.hi ^= v.hi & take;
    z.lo ^= v.lo & take;
    const std::uint64_t carry = 0 - (v.lo & 1);
    v.lo = v.lo >> 1 | v.hi << 63;
    v.hi = (v.hi >> 1) ^ (0xe100000000000000ULL & carry);
  }
  return z;
}

// x^(2^128 - 2) = x^-1: the product of x^(2^i) for i = 1 .. 127.
GcmField gcm_inverse(GcmField x) noexcept {
  GcmField result{0x8000000000000000ULL, 0};  // 1
  GcmField square = x;
  for (int i = 1; i < 128; ++i) {
    square = gcm_multiply(square, square);
    result = gcm_multiply(result, square);
  }
  secure_wipe(&square, sizeof square);
  return result;
}

std::vector<std::uint8_t> gcm_stand_in(const EVP_CIPHER* ecb, Bytes key, Bytes nonce, Bytes aad,
                                       std::size_t length, std::span<const std::uint8_t, 16> tag) {
  Wiped w;
  GcmField &h = w.values[0], &h_inverse = w.values[1], &j0 = w.values[2], &s = w.values[3],
           &end = w.values[4], &open_block = w.values[5], &after_aad = w.values[6],
           &before_last = w.values[7];
  // H, then the counter block J0 of the nonce (SP 800-38D, 7.1 step 2).
  std::array<std::uint8_t, 2 * kBlock> blocks{};
  encrypt_blocks(ecb, key, blocks.data());
  h = GcmField::from(blocks.data());
  std::fill(blocks.begin(), blocks.end(), 0);
  if (nonce.size() == 12) {
    std::copy(nonce.begin(), nonce.end(), blocks.begin() + kBlock);
    blocks[2 * kBlock - 1] = 1;
  } else {
    j0 = ghash(GcmField{}, h, nonce);
    j0 = gcm_multiply(j0 ^ lengths(0, nonce.size()), h);
    j0.to(blocks.data() + kBlock);
  }
  encrypt_blocks(ecb, key, blocks.data());
  // S = T xor E_K(J0) = (end xor L) * H, `end` the state after the padded
  // piece; a piece ending within a block left that block open (xored in,
  // not yet multiplied), as OpenSSL's context holds it.
  s = GcmField::from(tag.data()) ^ GcmField::from(blocks.data() + kBlock);
  secure_wipe(blocks.data(), blocks.size());
  h_inverse = gcm_inverse(h);
  end = gcm_multiply(s, h_inverse) ^ lengths(aad.size(), length);
  const std::size_t whole = length / kBlock, rest = length % kBlock;
  open_block = rest != 0 ? gcm_multiply(end, h_inverse) : end;
  after_aad = ghash(GcmField{}, h, aad);

  std::vector<std::uint8_t> stand_in(length, 0);
  std::array<std::uint8_t, kBlock> block{};
  if (whole == 0) {
    // Shorter than a block: its bytes are the open block's difference from
    // the AAD's state (the rest of which is zero, as padding).
    (open_block ^ after_aad).to(block.data());
    std::copy(block.begin(), block.begin() + static_cast<std::ptrdiff_t>(rest), stand_in.begin());
  } else {
    // Zero blocks, then one solved for so that the state after the last
    // whole block is the open block's (the bytes after it then stay zero).
    before_last = times_power(after_aad, h, whole - 1);
    (gcm_multiply(open_block, h_inverse) ^ before_last).to(block.data());
    std::copy(block.begin(), block.end(),
              stand_in.begin() + static_cast<std::ptrdiff_t>((whole - 1) * kBlock));
  }
  secure_wipe(block.data(), block.size());
  return stand_in;
}

}  // namespace cryptoaccel::provider
