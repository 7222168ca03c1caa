// One AEAD message (GCM or ChaCha20-Poly1305) as EVP hands it over: AAD,
// the payload in any number of pieces, then the tag.
//
// A message that arrives whole — AAD, one payload, final: libssl, OpenSSH's
// EVP_Cipher(), `openssl speed` — is sealed or opened by the dispatcher's
// driver in one request. Anything else — a second payload piece (CMS,
// Python's `cryptography`), AAD after the payload, a decryption whose tag
// comes only at the end — continues in OpenSSL's own streaming
// implementation (OpenSslDefault): the message so far is replayed into it,
// so every output byte and return value is what OpenSSL's default provider
// gives. As there, a streamed decryption releases plaintext from update and
// checks the tag at finish.
#pragma once

#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "cipher_common.hpp"
#include "openssl_default.hpp"

namespace cryptoaccel::provider {

class AeadMessage {
 public:
  static constexpr std::size_t kMaxTag = 16;

  AeadMessage(ProviderContext* pc, const Algorithm& a) : pc_(pc), alg_(a) {}
  AeadMessage(const AeadMessage& other);
  AeadMessage& operator=(const AeadMessage&) = delete;
  ~AeadMessage();

  // Keeps the driver session (and its key schedule) when `key` is the
  // current key. Throws what the session throws.
  void set_key(Bytes key);
  bool has_key() const noexcept { return session_.has_value(); }
  AeadSession& session() { return *session_; }

  // A key (or only a direction) given in the middle of a message without a
  // nonce: OpenSSL's GCM goes on with its state reset under the new key
  // (counter and hash at zero), which only its own implementation
  // reproduces. `key` empty keeps the key. Throws what set_key throws.
  void restart_in_stream(bool encrypt, Bytes key);

  // A ctrl applied to the message under way in OpenSSL's implementation
  // (ChaCha20-Poly1305's tlsivfixed changes the nonce mid-message there).
  // False where OpenSSL refuses it.
  bool stream_ctrl(int type, int arg, void* ptr);

  // Starts a message under `nonce`: forgets the previous one.
  void begin(bool encrypt, Bytes nonce);
  // Whether this message has seen payload (or was finished).
  bool payload_started() const noexcept { return state_ != State::aad; }

  // False (with OpenSSL's answer) where the streaming implementation refuses.
  bool aad(Bytes in);
  // `expected_tag` is the decryption's tag when already known, else empty.
  bool payload(Bytes in, std::uint8_t* out, Bytes expected_tag);
  // Encryption: writes the 16-byte tag. Decryption: checks `tag`, in
  // constant time. False on a mismatch or a refused message.
  bool finish_encrypt(std::span<std::uint8_t, kMaxTag> tag);
  bool finish_decrypt(Bytes tag);

 private:
  enum class State : std::uint8_t {
    aad,       // AAD buffered, no payload yet
    whole,     // one payload piece done by the driver (ciphertext kept)
    streaming  // in OpenSSL's implementation
  };
  void stream_start();
  void stream_replay();
  bool finish_stream();
  const char* name() const;

  ProviderContext* pc_;
  const Algorithm& alg_;
  std::optional<AeadSession> session_;
  SecretBytes key_;  // so that dupctx and a re-init with the same key need not ask OpenSSL again
  bool encrypt_ = true;
  std::array<std::uint8_t, 128> nonce_{};
  std::size_t nonce_len_ = 0;
  State state_ = State::aad;
  std::vector<std::uint8_t> aad_;
  std::vector<std::uint8_t> ciphertext_;  // of the piece done whole (public)
  std::array<std::uint8_t, kMaxTag> tag_{};
  std::size_t tag_len_ = 0;  // whole: the tag computed or verified
  CipherCtxPtr stream_;
};

}  // namespace cryptoaccel::provider
