// An AEAD decryption whose tag comes only at the end (OpenVPN, and most
// protocol stacks: AAD, payload, then the tag, then final), opened without
// the CPU decrypting anything.
//
// EVP releases the plaintext at update, before the tag is known, so the
// message cannot go to a driver's AEAD open in one request. Its payload is
// decrypted instead by the same key's keystream cipher (AES-CTR from
// GCM's second counter block, ChaCha20 from block 1) on whichever driver the
// dispatcher picks for it, and the CPU computes only the authenticator over
// the ciphertext it is handed anyway:
//
// - GCM: GHASH, by OpenSSL's GMAC in the provider's own library context
//   over AAD, padding and ciphertext as one string. GMAC ends that string
//   with the length block [8|string| || 0] where GCM has [8|AAD| || 8|C|];
//   GHASH is linear, so the tag is GMAC's xor (difference of the two
//   blocks) * H, one multiplication in GF(2^128) (H = E_K(0), from the
//   keystream cipher once per key).
// - ChaCha20-Poly1305: Poly1305 in the provider's own library context,
//   keyed by keystream block 0, fed exactly what OpenSSL's implementation
//   feeds its Poly1305 (AAD given after a payload piece included).
//
// Only for 96-bit nonces, where GCM's counter cannot carry out of its low
// 32 bits within GCM's length limit, so that a 128-bit CTR counter gives the
// same keystream.
#pragma once

#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <memory>

#include "cipher_common.hpp"

namespace cryptoaccel::provider {

class KeystreamOpen {
 public:
  static constexpr std::size_t kNonce = 12;

  // The keystream cipher of `aead` under `key`. Throws Unsupported where no
  // driver the session options allow serves it.
  KeystreamOpen(ProviderContext& pc, const Algorithm& aead, Bytes key);
  ~KeystreamOpen();
  KeystreamOpen(const KeystreamOpen&) = delete;
  KeystreamOpen& operator=(const KeystreamOpen&) = delete;

  // A message under the same key, continuing from where `other`'s is: for
  // dupctx. Throws what the constructor throws.
  std::unique_ptr<KeystreamOpen> clone(ProviderContext& pc, const Algorithm& aead, Bytes key) const;

  // Starts a message: `nonce` is kNonce bytes, `aad` all of its AAD so far.
  void begin(Bytes nonce, Bytes aad);
  // More AAD after payload: ChaCha20-Poly1305 takes it as OpenSSL's does;
  // GCM refuses it (false), as OpenSSL's does.
  bool more_aad(Bytes aad);
  // Decrypts a piece of payload into `out` (same length; may alias `in`).
  // False past GCM's length limit.
  bool payload(Bytes in, std::uint8_t* out);
  // Whether `tag` (1 to 16 bytes: OpenSSL compares as many as were given)
  // is the message's, compared in constant time. Ends the message.
  bool finish(Bytes tag);
  // Whether finish() ended the message (begin() starts the next).
  bool finished() const noexcept { return finished_; }

 private:
  void start_keystream(std::uint64_t offset);
  bool gcm_tag(std::span<std::uint8_t, 16> tag);
  bool poly1305_tag(std::span<std::uint8_t, 16> tag);

  const bool gcm_;
  CipherSession keystream_;
  struct MacCtxFree {
    void operator()(EVP_MAC_CTX* c) const noexcept { EVP_MAC_CTX_free(c); }
  };
  std::unique_ptr<EVP_MAC_CTX, MacCtxFree> mac_;
  std::array<std::uint8_t, 16> hash_key_{};  // GCM's H
  std::array<std::uint8_t, kNonce> nonce_{};
  std::uint64_t aad_len_ = 0, text_len_ = 0;
  bool aad_open_ = false;  // ChaCha20-Poly1305: AAD not yet padded
  bool finished_ = false;
};

// x * y in GCM's field (NIST SP 800-38D, algorithm 1), constant time.
void gf128_multiply(std::span<const std::uint8_t, 16> x, std::span<const std::uint8_t, 16> y,
                    std::span<std::uint8_t, 16> out) noexcept;

}  // namespace cryptoaccel::provider
