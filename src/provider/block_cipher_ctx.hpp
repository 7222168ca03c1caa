// The context of the ECB, CBC, CTR, XTS, DES and ChaCha20 ciphers: EVP's
// update/final contract on top of a streaming CipherSession, as OpenSSL's
// generic ciphers keep it (cipher_block.cpp: keys, data and TLS records;
// cipher_block_params.cpp: the parameters).
#pragma once

#include <openssl/core.h>

#include <array>
#include <cstdint>
#include <optional>

#include "cipher_common.hpp"
#include "openssl_default.hpp"

namespace cryptoaccel::provider {

inline constexpr std::size_t kMaxBlock = 16;

class BlockCipherCtx {
 public:
  BlockCipherCtx(ProviderContext* pc, const Algorithm& a) : pc_(pc), alg_(a) {}
  BlockCipherCtx(const BlockCipherCtx& other);
  ~BlockCipherCtx();

  ProviderContext* pc() const noexcept { return pc_; }

  // As OpenSSL's generic ciphers: a NULL key keeps the key, a NULL IV keeps
  // the running state except that CBC goes back to the IV last given (as
  // 1.1.1 did) and CTR continues its counter from the next whole block.
  // ChaCha20 continues exactly where it stood, or, as OpenSSL's does, from
  // the start of the current block when only the key changes.
  int init(bool encrypt, const std::uint8_t* key, std::size_t keylen, const std::uint8_t* iv,
           std::size_t ivlen, const OSSL_PARAM params[]);

  // OSSL_FUNC_CIPHER_CIPHER, what EVP_Cipher() calls (OpenSSH per packet):
  // the raw mode over `in` with no padding or buffering, as OpenSSL's
  // generic cipher; a CTR stream continues where it stood.
  int cipher(std::uint8_t* out, std::size_t* outl, std::size_t outsz, const std::uint8_t* in,
             std::size_t inl);

  int update(std::uint8_t* out, std::size_t* outl, std::size_t outsz, const std::uint8_t* in,
             std::size_t inl);

  int final(std::uint8_t* out, std::size_t* outl, std::size_t outsz);

  int get_params(OSSL_PARAM params[]);

  int set_params(const OSSL_PARAM params[]);

 private:
  // ChaCha20's block counter (little-endian, 32 bits carrying into the next
  // 32 as OpenSSL's does), one block back.
  static void step_chacha_back(std::array<std::uint8_t, 16>& iv);

  // A big-endian 128-bit counter, one block back.
  static void step_counter_back(std::array<std::uint8_t, 16>& counter);

  static bool halves_equal(Bytes key);

  // IEEE 1619 forbids an XTS key whose halves are equal, and no driver takes
  // one; OpenSSL refuses it only to encrypt, so that data written under such
  // a key can still be read. Its own XTS decrypts it here.
  void open_openssl_xts(Bytes key);
  int openssl_xts(std::uint8_t* out, std::size_t* outl, const std::uint8_t* in, std::size_t inl);

  // OpenSSL's ChaCha20 answers only the key and IV lengths, and takes only
  // those, at their one value each.
  int chacha20_get_params(OSSL_PARAM params[]) const;
  int chacha20_set_params(const OSSL_PARAM params[]) const;

  // CTR and ChaCha20: chain_ is the counter block that holds the stream's
  // position and num_ the bytes used of it; OpenSSL's CTR "updated-iv" is
  // the next block to generate, chain_ + 1 when num_ is not 0.
  bool keystream() const noexcept;
  void advance_stream(std::size_t n);

  // (Re)starts the session's stream at chain_, `skip` bytes into the
  // current CTR or ChaCha20 block.
  void restart(std::size_t skip);

  // One streamed request, keeping the CBC chain for dupctx and "updated-iv".
  void run(const std::uint8_t* in, std::uint8_t* out, std::size_t n);

  int block_update(std::uint8_t* out, std::size_t* outl, std::size_t outsz, const std::uint8_t* in,
                   std::size_t inl);

  // libssl passes explicit IV block || payload || MAC; we pad and encrypt.
  int tls_seal(std::uint8_t* out, std::size_t* outl, std::size_t outsz, const std::uint8_t* in,
               std::size_t inl);

  // Decrypts the record in place (or into `out`), then removes the explicit
  // IV, padding and MAC in constant time; libssl reads the MAC through the
  // "tls-mac" parameter and compares it.
  int tls_open(std::uint8_t* out, std::size_t* outl, std::size_t outsz, const std::uint8_t* in,
               std::size_t inl);

  bool random_key(OSSL_PARAM* p);

  void take_iv_and_key(bool encrypt, const std::uint8_t* key, std::size_t keylen,
                       const std::uint8_t* iv, std::size_t ivlen);
  int tls_stream_open(const std::uint8_t* out, std::size_t* outl, std::size_t inl);
  int not_initialised() const;
  int too_small(std::size_t need, std::size_t have) const;
  int wrong_final_block() const;
  int bad_param(const OSSL_PARAM* p) const;

  // Inside an OpenSSL ASYNC job with `gather = yes`: a CBC request waits,
  // the job paused, for a burst (async_burst.hpp). False where it was not
  // queued; the caller then runs it on the stream.
  bool run_in_burst(const std::uint8_t* in, std::uint8_t* out, std::size_t n);

  ProviderContext* pc_;
  const Algorithm& alg_;
  std::optional<CipherSession> session_;
  CipherCtxPtr openssl_xts_;  // an XTS key with equal halves, to decrypt
  SecretBytes key_;  // so that dupctx and a re-init with the same key need not ask OpenSSL again
  // Never initialised: decrypting, as OpenSSL's (zeroed) contexts.
  bool encrypt_ = false;
  bool padding_ = true;
  bool started_ = false;
  bool iv_set_ = false;
  bool chacha_block_kept_ = false;        // see advance_stream()
  std::array<std::uint8_t, 16> iv_{};     // as given to init (CBC/CTR start, XTS tweak)
  std::array<std::uint8_t, 16> chain_{};  // CBC: the next IV; CTR, ChaCha20: the current counter
  // "updated-iv" as last asked for: an octet pointer to it outlives get_params.
  mutable std::array<std::uint8_t, 16> updated_iv_{};
  std::size_t num_ = 0;  // CTR, ChaCha20: bytes used of the keystream block
  std::array<std::uint8_t, 2 * kMaxBlock> buf_{};
  std::size_t buf_len_ = 0;
  unsigned tls_version_ = 0;
  std::size_t tls_mac_size_ = 0;
  bool tls_mac_taken_ = false;  // by the last record, as "tls-mac" answers
  std::array<std::uint8_t, 64> tls_mac_{};
};

// The parameter lists of every BlockCipherCtx; what it takes depends on
// the mode, as in OpenSSL.
const OSSL_PARAM* block_cipher_gettable_ctx_params(void*, void*);
const OSSL_PARAM* block_cipher_settable_ctx_params(CipherMode mode);

}  // namespace cryptoaccel::provider
