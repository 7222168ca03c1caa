// One AEAD message (GCM or ChaCha20-Poly1305) as EVP hands it over: AAD,
// the payload in any number of pieces, then the tag.
//
// A message that arrives whole — AAD, one payload, final: libssl, OpenSSH's
// EVP_Cipher(), `openssl speed` — is sealed or opened by the dispatcher's
// driver in one request. A decryption whose tag comes only at the end
// (OpenVPN; CMS and Python's `cryptography` in pieces too) is decrypted by
// the key's keystream cipher on a driver while the CPU computes only the
// authenticator (KeystreamOpen), for 96-bit nonces. Anything else — a
// second payload piece of an encryption, AAD after the payload, a key or
// nonce changed mid-message — continues in OpenSSL's own streaming
// implementation (OpenSslDefault): the message so far is replayed into it,
// so every output byte and return value is what OpenSSL's default provider
// gives. As there, a decryption releases plaintext from update and checks
// the tag at finish.
#pragma once

#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "aead_keystream_open.hpp"
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
    aad,        // AAD buffered, no payload yet
    whole,      // one payload piece done by the driver (ciphertext kept)
    keystream,  // a decryption in KeystreamOpen, its tag still to come
    streaming   // in OpenSSL's implementation
  };
  void stream_start();
  void stream_replay();
  // Continues the message, whatever its state, in OpenSSL's implementation.
  void to_stream();
  // A decryption of `in`, its tag to come, on the keystream cipher; false
  // where no driver serves that cipher or the nonce is not 96 bits.
  bool keystream_start(Bytes in, std::uint8_t* out);
  bool keystream_payload(Bytes in, std::uint8_t* out);
  bool finish_stream();
  void forget_replay();
  const char* name() const;

  ProviderContext* pc_;
  const Algorithm& alg_;
  std::optional<AeadSession> session_;
  SecretBytes key_;  // so that dupctx and a re-init with the same key need not ask OpenSSL again
  // A context never initialised decrypts, as OpenSSL's (zeroed) do: a
  // tag set on it is taken.
  bool encrypt_ = false;
  std::array<std::uint8_t, 128> nonce_{};
  std::size_t nonce_len_ = 0;
  State state_ = State::aad;
  std::vector<std::uint8_t> aad_;
  // Whole: the piece done by the driver; keystream: the payload so far, up
  // to kReplayLimit bytes (replayable_ false past it). Public data.
  static constexpr std::size_t kReplayLimit = std::size_t{1} << 20;
  std::vector<std::uint8_t> ciphertext_;
  // Keystream: AAD given after payload (OpenSSL 3.0's ChaCha20-Poly1305
  // takes it), each with the payload length it came after, replayed in order.
  std::vector<std::pair<std::size_t, std::vector<std::uint8_t>>> late_aad_;
  bool replayable_ = true;
  std::array<std::uint8_t, kMaxTag> tag_{};
  std::size_t tag_len_ = 0;  // whole: the tag computed or verified
  // A GCM encryption done whole keeps no ciphertext: a replay rebuilds a
  // stand-in of this many bytes from the tag (gcm_stand_in.hpp); 0: none.
  std::size_t stand_in_length_ = 0;
  CipherCtxPtr stream_;
  // For the current key; made at the first message that needs it.
  std::unique_ptr<KeystreamOpen> keystream_open_;
  bool keystream_unserved_ = false;  // no driver serves the keystream cipher
};

}  // namespace cryptoaccel::provider
