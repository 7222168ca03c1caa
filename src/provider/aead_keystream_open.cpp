#include "aead_keystream_open.hpp"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <algorithm>
#include <string>

namespace cryptoaccel::provider {
namespace {

constexpr std::size_t kBlock = 16;        // GHASH's and Poly1305's block
constexpr std::size_t kChaChaBlock = 64;  // one ChaCha20 keystream block
constexpr std::size_t kPoly1305Key = 32;
// GCM's limit on the plaintext of one message (2^39 - 256 bits), as
// OpenSSL's gcm128.c enforces it.
constexpr std::uint64_t kGcmMaxText = (std::uint64_t{1} << 36) - 32;
constexpr std::array<std::uint8_t, kChaChaBlock> kZeros{};

std::string keystream_name(const Algorithm& aead, std::size_t key_size) {
  if (aead.id == AlgorithmId::chacha20_poly1305) return "chacha20";
  return "aes-" + std::to_string(key_size * 8) + "-ctr";
}

std::uint64_t load_be64(const std::uint8_t* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return v;
}

void store_be64(std::uint8_t* p, std::uint64_t v) noexcept {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = static_cast<std::uint8_t>(v);
}

void store_le64(std::uint8_t* p, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i, v >>= 8) p[i] = static_cast<std::uint8_t>(v);
}

void mac_update(EVP_MAC_CTX* mac, const std::uint8_t* data, std::size_t n) {
  if (n != 0 && EVP_MAC_update(mac, data, n) != 1)
    throw DriverFailure("OpenSSL's MAC refused the message");
}

// Zeros up to the next multiple of 16 after `length` bytes.
void pad_to_block(EVP_MAC_CTX* mac, std::uint64_t length) {
  if (const auto rem = static_cast<std::size_t>(length % kBlock); rem != 0)
    mac_update(mac, kZeros.data(), kBlock - rem);
}

}  // namespace

void gf128_multiply(std::span<const std::uint8_t, 16> x, std::span<const std::uint8_t, 16> y,
                    std::span<std::uint8_t, 16> out) noexcept {
  // Bit 0 is the most significant bit of byte 0; R = 11100001 || 0^120.
  const std::uint64_t xh = load_be64(x.data()), xl = load_be64(x.data() + 8);
  std::uint64_t vh = load_be64(y.data()), vl = load_be64(y.data() + 8);
  std::uint64_t zh = 0, zl = 0;
  for (int i = 0; i < 128; ++i) {
    const std::uint64_t bit = (i < 64 ? xh >> (63 - i) : xl >> (127 - i)) & 1;
    zh ^= vh & (0 - bit);
    zl ^= vl & (0 - bit);
    const std::uint64_t carry = vl & 1;
    vl = vl >> 1 | vh << 63;
    vh = vh >> 1 ^ (0xe100000000000000ULL & (0 - carry));
  }
  store_be64(out.data(), zh);
  store_be64(out.data() + 8, zl);
}

KeystreamOpen::KeystreamOpen(ProviderContext& pc, const Algorithm& aead, Bytes key)
    : gcm_(aead.id != AlgorithmId::chacha20_poly1305),
      keystream_(keystream_name(aead, key.size()), key, pc.session_options()) {
  OSSL_LIB_CTX* libctx = pc.openssl_default().libctx();
  EVP_MAC* mac = EVP_MAC_fetch(libctx, gcm_ ? "GMAC" : "POLY1305", "provider=default");
  if (mac == nullptr) throw Unsupported("OpenSSL's default provider has no GMAC or Poly1305");
  mac_.reset(EVP_MAC_CTX_new(mac));
  EVP_MAC_free(mac);
  if (!mac_) throw std::bad_alloc();
  if (!gcm_) return;  // Poly1305 is keyed per message
  // H = E_K(0^128): the keystream of the all-zero counter block.
  keystream_.encrypt({kZeros.data(), kBlock}, {kZeros.data(), kBlock}, hash_key_);
  std::string cipher = "AES-" + std::to_string(key.size() * 8) + "-GCM";
  std::string properties = "provider=default";
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, cipher.data(), 0),
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_PROPERTIES, properties.data(), 0),
      OSSL_PARAM_END};
  if (EVP_MAC_init(mac_.get(), key.data(), key.size(), params) != 1)
    throw DriverFailure("OpenSSL's GMAC refused the key");
}

KeystreamOpen::~KeystreamOpen() {
  secure_wipe(hash_key_.data(), hash_key_.size());
}

std::unique_ptr<KeystreamOpen> KeystreamOpen::clone(ProviderContext& pc, const Algorithm& aead,
                                                    Bytes key) const {
  auto copy = std::make_unique<KeystreamOpen>(pc, aead, key);
  copy->mac_.reset(EVP_MAC_CTX_dup(mac_.get()));
  if (!copy->mac_) throw std::bad_alloc();
  copy->nonce_ = nonce_;
  copy->aad_len_ = aad_len_;
  copy->text_len_ = text_len_;
  copy->aad_open_ = aad_open_;
  copy->finished_ = finished_;
  copy->start_keystream(text_len_);
  return copy;
}

// The keystream from `offset` bytes into the payload: GCM's counter blocks
// start at inc32(J0) = nonce || 2, ChaCha20-Poly1305's payload at block 1.
void KeystreamOpen::start_keystream(std::uint64_t offset) {
  std::array<std::uint8_t, 16> iv{};
  std::size_t skip = 0;
  if (gcm_) {
    std::copy(nonce_.begin(), nonce_.end(), iv.begin());
    const std::uint64_t counter = 2 + offset / kBlock;  // below 2^32 within kGcmMaxText
    for (int i = 0; i < 4; ++i) iv[15 - i] = static_cast<std::uint8_t>(counter >> (8 * i));
    skip = static_cast<std::size_t>(offset % kBlock);
  } else {
    const std::uint64_t counter = 1 + offset / kChaChaBlock;
    for (int i = 0; i < 4; ++i) iv[i] = static_cast<std::uint8_t>(counter >> (8 * i));
    std::copy(nonce_.begin(), nonce_.end(), iv.begin() + 4);
    skip = static_cast<std::size_t>(offset % kChaChaBlock);
  }
  keystream_.begin(Direction::decrypt, iv);
  if (skip != 0) {
    std::array<std::uint8_t, kChaChaBlock> discard{};
    keystream_.update({kZeros.data(), skip}, {discard.data(), skip});
    secure_wipe(discard.data(), discard.size());
  }
}

void KeystreamOpen::begin(Bytes nonce, Bytes aad) {
  if (nonce.size() != kNonce) throw InvalidIvLength("KeystreamOpen takes 96-bit nonces");
  std::copy(nonce.begin(), nonce.end(), nonce_.begin());
  aad_len_ = aad.size();
  text_len_ = 0;
  finished_ = false;
  if (gcm_) {
    const OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_IV, nonce_.data(), nonce_.size()),
        OSSL_PARAM_END};
    if (EVP_MAC_init(mac_.get(), nullptr, 0, params) != 1)
      throw DriverFailure("OpenSSL's GMAC refused the nonce");
    mac_update(mac_.get(), aad.data(), aad.size());
    pad_to_block(mac_.get(), aad.size());
    start_keystream(0);
    return;
  }
  // Block 0 keys Poly1305; the payload's keystream goes on from block 1.
  std::array<std::uint8_t, 16> iv{};
  std::copy(nonce_.begin(), nonce_.end(), iv.begin() + 4);
  std::array<std::uint8_t, kChaChaBlock> block0{};
  keystream_.begin(Direction::decrypt, iv);
  keystream_.update(kZeros, block0);
  const int keyed = EVP_MAC_init(mac_.get(), block0.data(), kPoly1305Key, nullptr);
  secure_wipe(block0.data(), block0.size());
  if (keyed != 1) throw DriverFailure("OpenSSL's Poly1305 refused its key");
  mac_update(mac_.get(), aad.data(), aad.size());
  aad_open_ = true;
}

bool KeystreamOpen::more_aad(Bytes aad) {
  if (gcm_) return false;
  mac_update(mac_.get(), aad.data(), aad.size());
  aad_len_ += aad.size();
  aad_open_ = true;
  return true;
}

bool KeystreamOpen::payload(Bytes in, std::uint8_t* out) {
  if (gcm_ && (in.size() > kGcmMaxText || text_len_ + in.size() > kGcmMaxText)) return false;
  if (aad_open_) {
    pad_to_block(mac_.get(), aad_len_);
    aad_open_ = false;
  }
  // The ciphertext is authenticated before an in-place decryption overwrites it.
  mac_update(mac_.get(), in.data(), in.size());
  if (!in.empty()) keystream_.update(in, {out, in.size()});
  text_len_ += in.size();
  return true;
}

bool KeystreamOpen::gcm_tag(std::span<std::uint8_t, 16> tag) {
  std::size_t n = 0;
  if (EVP_MAC_final(mac_.get(), tag.data(), &n, tag.size()) != 1 || n != tag.size()) return false;
  // GMAC ended with [8 * (padded AAD + ciphertext) || 0], GCM with
  // [8 * AAD || 8 * ciphertext]: add (the difference) * H.
  const std::uint64_t padded_aad = (aad_len_ + kBlock - 1) / kBlock * kBlock;
  std::array<std::uint8_t, 16> difference{}, correction{};
  store_be64(difference.data(), 8 * (padded_aad + text_len_) ^ 8 * aad_len_);
  store_be64(difference.data() + 8, 8 * text_len_);
  gf128_multiply(difference, hash_key_, correction);
  for (std::size_t i = 0; i < tag.size(); ++i) tag[i] ^= correction[i];
  secure_wipe(correction.data(), correction.size());
  return true;
}

bool KeystreamOpen::poly1305_tag(std::span<std::uint8_t, 16> tag) {
  if (aad_open_) {
    pad_to_block(mac_.get(), aad_len_);
    aad_open_ = false;
  }
  pad_to_block(mac_.get(), text_len_);
  std::array<std::uint8_t, 16> lengths{};
  store_le64(lengths.data(), aad_len_);
  store_le64(lengths.data() + 8, text_len_);
  mac_update(mac_.get(), lengths.data(), lengths.size());
  std::size_t n = 0;
  return EVP_MAC_final(mac_.get(), tag.data(), &n, tag.size()) == 1 && n == tag.size();
}

bool KeystreamOpen::finish(Bytes tag) {
  finished_ = true;
  std::array<std::uint8_t, 16> computed{};
  const bool made = gcm_ ? gcm_tag(computed) : poly1305_tag(computed);
  const bool match = made && !tag.empty() && tag.size() <= computed.size() &&
                     constant_time_equal(tag, {computed.data(), tag.size()});
  secure_wipe(computed.data(), computed.size());
  return match;
}

}  // namespace cryptoaccel::provider
