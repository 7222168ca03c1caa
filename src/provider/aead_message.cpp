#include "aead_message.hpp"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <algorithm>
#include <string>

#include "errors.hpp"
#include "gcm_stand_in.hpp"

namespace cryptoaccel::provider {
namespace {

AeadSession open_aead(ProviderContext& pc, const Algorithm& a, Bytes key) {
  return AeadSession(a.name, key, pc.session_options());
}

// Starts `ctx` on `cipher` with key and nonce: OpenSSL's streaming side.
void start(EVP_CIPHER_CTX* ctx, const EVP_CIPHER* cipher, bool encrypt, Bytes key, Bytes nonce) {
  std::size_t nonce_len = nonce.size();
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &nonce_len), OSSL_PARAM_END};
  const bool default_length = static_cast<int>(nonce_len) == EVP_CIPHER_get_iv_length(cipher);
  if (EVP_CipherInit_ex2(ctx, cipher, nullptr, nullptr, encrypt ? 1 : 0,
                         default_length ? nullptr : params) != 1 ||
      EVP_CipherInit_ex2(ctx, nullptr, key.data(), nonce.data(), encrypt ? 1 : 0, nullptr) != 1)
    throw DriverFailure("OpenSSL's default provider refused the message's key or nonce");
}

}  // namespace

AeadMessage::AeadMessage(const AeadMessage& other)
    : pc_(other.pc_),
      alg_(other.alg_),
      key_(other.key_),
      encrypt_(other.encrypt_),
      nonce_(other.nonce_),
      nonce_len_(other.nonce_len_),
      state_(other.state_),
      aad_(other.aad_),
      ciphertext_(other.ciphertext_),
      late_aad_(other.late_aad_),
      replayable_(other.replayable_),
      tag_(other.tag_),
      tag_len_(other.tag_len_),
      stand_in_length_(other.stand_in_length_),
      keystream_unserved_(other.keystream_unserved_) {
  if (!key_.empty()) session_.emplace(open_aead(*pc_, alg_, key_.span()));
  // A decryption under way on the keystream goes on there in the copy too.
  if (other.state_ == State::keystream)
    keystream_open_ = other.keystream_open_->clone(*pc_, alg_, key_.span());
  if (other.stream_) {
    stream_.reset(EVP_CIPHER_CTX_new());
    if (!stream_ || EVP_CIPHER_CTX_copy(stream_.get(), other.stream_.get()) != 1)
      throw DriverFailure("cannot copy OpenSSL's streaming context");
  }
}

AeadMessage::~AeadMessage() {
  if (!aad_.empty()) secure_wipe(aad_.data(), aad_.size());
  secure_wipe(tag_.data(), tag_.size());
  secure_wipe(nonce_.data(), nonce_.size());
}

void AeadMessage::set_key(Bytes key) {
  if (session_ && key_.equals(key)) return;
  AeadSession fresh = open_aead(*pc_, alg_, key);  // a refused key leaves the old one
  session_.emplace(std::move(fresh));
  key_.assign(key);
  // A message on the old key's keystream is over: the next one begins anew.
  if (state_ == State::keystream) {
    state_ = State::aad;
    forget_replay();
  }
  keystream_open_.reset();
  keystream_unserved_ = false;
}

void AeadMessage::to_stream() {
  if (state_ == State::keystream && !replayable_)
    throw Unsupported(std::string(name()) +
                      ": a key, direction or nonce changed in the middle of a decryption past "
                      "its first " +
                      std::to_string(kReplayLimit) + " bytes");
  if (state_ == State::streaming) return;
  const bool replay = state_ != State::aad;
  stream_start();
  if (replay) stream_replay();
}

void AeadMessage::restart_in_stream(bool encrypt, Bytes key) {
  to_stream();
  if (!key.empty()) set_key(key);
  encrypt_ = encrypt;
  if (EVP_CipherInit_ex2(stream_.get(), nullptr, key.empty() ? nullptr : key.data(), nullptr,
                         encrypt ? 1 : 0, nullptr) != 1)
    throw DriverFailure("OpenSSL's default provider refused the new key");
}

bool AeadMessage::stream_ctrl(int type, int arg, void* ptr) {
  to_stream();
  return EVP_CIPHER_CTX_ctrl(stream_.get(), type, arg, ptr) == 1;
}

void AeadMessage::begin(bool encrypt, Bytes nonce) {
  encrypt_ = encrypt;
  std::copy(nonce.begin(), nonce.end(), nonce_.begin());
  nonce_len_ = nonce.size();
  state_ = State::aad;
  if (!aad_.empty()) secure_wipe(aad_.data(), aad_.size());
  aad_.clear();
  forget_replay();
  replayable_ = true;
  tag_len_ = 0;
  stream_.reset();
}

const char* AeadMessage::name() const {
  return alg_.name.data();  // the table's names are NUL-terminated literals
}

void AeadMessage::stream_start() {
  const EVP_CIPHER* cipher = pc_->openssl_default().cipher(alg_);
  stream_.reset(EVP_CIPHER_CTX_new());
  if (!stream_) throw std::bad_alloc();
  start(stream_.get(), cipher, encrypt_, key_.span(), {nonce_.data(), nonce_len_});
  // Even an empty AAD call starts the message (GCM sets its counter from
  // the nonce then), as the message had started here.
  static const std::uint8_t kNone[1] = {0};
  if (EVP_Cipher(stream_.get(), nullptr, aad_.empty() ? kNone : aad_.data(),
                 static_cast<unsigned>(aad_.size())) < 0)
    throw DriverFailure("OpenSSL's default provider refused the AAD");
  state_ = State::streaming;
}

// Brings the stream to where the piece done whole left the message. The
// stream's encryption needs the plaintext, recovered from the kept
// ciphertext with the same keystream.
void AeadMessage::stream_replay() {
  if (stand_in_length_ != 0) {
    const Algorithm& ecb = algorithm(key_.size() == 16   ? AlgorithmId::aes_128_ecb
                                     : key_.size() == 24 ? AlgorithmId::aes_192_ecb
                                                         : AlgorithmId::aes_256_ecb);
    ciphertext_ = gcm_stand_in(pc_->openssl_default().cipher(ecb), key_.span(),
                               {nonce_.data(), nonce_len_}, aad_, stand_in_length_,
                               std::span<const std::uint8_t, kMaxTag>(tag_.data(), kMaxTag));
    stand_in_length_ = 0;
  }
  if (ciphertext_.empty()) return;
  // OpenSSL's implementation goes over the message again: the stats say so.
  pc_->openssl_default().count(name(), ciphertext_.size());
  std::vector<std::uint8_t> scratch(ciphertext_.size());
  const auto n = static_cast<unsigned>(ciphertext_.size());
  if (encrypt_) {
    CipherCtxPtr decrypt(EVP_CIPHER_CTX_new());
    if (!decrypt) throw std::bad_alloc();
    start(decrypt.get(), pc_->openssl_default().cipher(alg_), false, key_.span(),
          {nonce_.data(), nonce_len_});
    if (EVP_Cipher(decrypt.get(), scratch.data(), ciphertext_.data(), n) < 0)
      throw DriverFailure("cannot replay the message into OpenSSL's default provider");
  } else {
    std::copy(ciphertext_.begin(), ciphertext_.end(), scratch.begin());
  }
  // Decrypting writes plaintext, encrypting reads it: both stay in scratch.
  // AAD that came after payload goes in where it came.
  bool ok = true;
  std::size_t done = 0;
  auto payload_to = [&](std::size_t end) {
    if (end > done)
      ok = ok && EVP_Cipher(stream_.get(), scratch.data() + done, scratch.data() + done,
                            static_cast<unsigned>(end - done)) >= 0;
    done = end;
  };
  for (const auto& [after, aad] : late_aad_) {
    payload_to(after);
    ok = ok &&
         EVP_Cipher(stream_.get(), nullptr, aad.data(), static_cast<unsigned>(aad.size())) >= 0;
  }
  payload_to(n);
  secure_wipe(scratch.data(), scratch.size());
  if (!ok) throw DriverFailure("cannot replay the message into OpenSSL's default provider");
  forget_replay();
}

void AeadMessage::forget_replay() {
  ciphertext_.clear();
  late_aad_.clear();
  stand_in_length_ = 0;
}

bool AeadMessage::aad(Bytes in) {
  if (state_ == State::aad) {
    aad_.insert(aad_.end(), in.begin(), in.end());
    return true;
  }
  // A stream is OpenSSL's own message: it judges late AAD by its own rule
  // (OpenSSL 4.0's ChaCha20-Poly1305 refuses it after payload bytes only).
  if (state_ == State::streaming)
    return EVP_Cipher(stream_.get(), nullptr, in.data(), static_cast<unsigned>(in.size())) >= 0;
  // Otherwise payload bytes went through a driver. ChaCha20-Poly1305 takes
  // AAD after them where the running OpenSSL does; GCM refuses it, as
  // OpenSSL does.
  if (alg_.mode == CipherMode::chacha20_poly1305 &&
      pc_->openssl_default().contract().chacha_poly_aad_first)
    return false;
  if (state_ == State::keystream) {
    if (!keystream_open_->more_aad(in)) return false;
    std::size_t kept = ciphertext_.size() + in.size();
    for (const auto& late : late_aad_) kept += late.second.size();
    if (replayable_ && kept <= kReplayLimit)
      late_aad_.emplace_back(ciphertext_.size(), std::vector<std::uint8_t>(in.begin(), in.end()));
    else
      replayable_ = false;  // what would need the replay is refused (to_stream)
    return true;
  }
  to_stream();
  return EVP_Cipher(stream_.get(), nullptr, in.data(), static_cast<unsigned>(in.size())) >= 0;
}

// The keystream cipher's session is opened at the first such message under
// a key; where no driver serves it, every message under that key streams.
bool AeadMessage::keystream_start(Bytes in, std::uint8_t* out) {
  if (nonce_len_ != KeystreamOpen::kNonce || keystream_unserved_) return false;
  if (!keystream_open_) {
    try {
      keystream_open_ = std::make_unique<KeystreamOpen>(*pc_, alg_, key_.span());
    } catch (const Unsupported&) {
      keystream_unserved_ = true;
      return false;
    }
  }
  keystream_open_->begin({nonce_.data(), nonce_len_}, aad_);
  state_ = State::keystream;
  return keystream_payload(in, out);
}

// Kept for a replay into OpenSSL's implementation (a key, direction or
// nonce changed mid-message) up to kReplayLimit bytes: past that the
// message is not held in memory.
bool AeadMessage::keystream_payload(Bytes in, std::uint8_t* out) {
  if (keystream_open_->finished())
    throw Unsupported(std::string(name()) +
                      ": a decryption continued after its tag failed, past its first " +
                      std::to_string(kReplayLimit) + " bytes");
  if (replayable_ && ciphertext_.size() + in.size() <= kReplayLimit) {
    ciphertext_.insert(ciphertext_.end(), in.begin(), in.end());
  } else {
    replayable_ = false;
    forget_replay();
    ciphertext_.shrink_to_fit();
  }
  return keystream_open_->payload(in, out);
}

bool AeadMessage::payload(Bytes in, std::uint8_t* out, Bytes expected_tag) {
  if (state_ == State::keystream) return keystream_payload(in, out);
  if (state_ == State::aad && !in.empty()) {
    if (encrypt_) {
      session_->seal({nonce_.data(), nonce_len_}, aad_, in, {out, in.size()},
                     {tag_.data(), kMaxTag});
      tag_len_ = kMaxTag;
      // GCM needs no copy for a replay: its tag gives a stand-in back
      // (gcm_stand_in.hpp). ChaCha20-Poly1305 keeps the piece.
      if (alg_.mode == CipherMode::gcm)
        stand_in_length_ = in.size();
      else
        ciphertext_.assign(out, out + in.size());
      state_ = State::whole;
      return true;
    }
    if (!expected_tag.empty() && alg_.tag_sizes.contains(expected_tag.size())) {
      ciphertext_.assign(in.begin(), in.end());  // `out` may alias `in`
      try {
        session_->open({nonce_.data(), nonce_len_}, aad_, in, expected_tag, {out, in.size()});
        std::copy(expected_tag.begin(), expected_tag.end(), tag_.begin());
        tag_len_ = expected_tag.size();
        state_ = State::whole;
        return true;
      } catch (const AuthenticationFailed&) {
        // A forgery, or a message that goes on in another piece: OpenSSL
        // releases this piece's plaintext now and fails at final.
        stream_start();
        const int done = EVP_Cipher(stream_.get(), out, ciphertext_.data(),
                                    static_cast<unsigned>(ciphertext_.size()));
        pc_->openssl_default().count(alg_.name.data(), in.size());
        ciphertext_.clear();
        return done >= 0;
      }
    }
  }
  if (state_ == State::aad && !encrypt_ && !in.empty() && keystream_start(in, out)) return true;
  to_stream();
  pc_->openssl_default().count(name(), in.size());
  return EVP_Cipher(stream_.get(), out, in.data(), static_cast<unsigned>(in.size())) >= 0;
}

// Through final, not EVP_Cipher(NULL): OpenSSL 3.0.19's ChaCha20-Poly1305
// neither makes nor checks the tag on the latter (3.0.22 does).
bool AeadMessage::finish_stream() {
  unsigned char none[16];
  int outl = 0;
  return EVP_CipherFinal_ex(stream_.get(), none, &outl) == 1;
}

bool AeadMessage::finish_encrypt(std::span<std::uint8_t, kMaxTag> tag) {
  if (state_ == State::aad) {
    session_->seal({nonce_.data(), nonce_len_}, aad_, {}, {}, {tag_.data(), kMaxTag});
    tag_len_ = kMaxTag;
    state_ = State::whole;
  }
  if (state_ == State::whole) {
    std::copy(tag_.begin(), tag_.end(), tag.begin());
    return true;
  }
  return finish_stream() && EVP_CIPHER_CTX_ctrl(stream_.get(), EVP_CTRL_AEAD_GET_TAG,
                                                static_cast<int>(kMaxTag), tag.data()) == 1;
}

bool AeadMessage::finish_decrypt(Bytes tag) {
  // A GCM message whose tag fails stays OpenSSL's, finished once: a later
  // final (an encryption's, after a direction change) finishes it again.
  // From here the stream holds it, brought there by the same failed final
  // (a forgery costs that one authentication on the CPU).
  const bool failure_kept = alg_.mode != CipherMode::chacha20_poly1305;
  if (state_ == State::aad && alg_.tag_sizes.contains(tag.size())) {
    try {
      session_->open({nonce_.data(), nonce_len_}, aad_, {}, tag, {});
      return true;
    } catch (const AuthenticationFailed&) {
      if (!failure_kept) return false;
    }
  }
  // A tag no longer than the one verified is checked against it, as
  // OpenSSL compares only the tag's length; a longer one needs the stream.
  if (state_ == State::whole && tag.size() <= tag_len_) {
    if (!tag.empty() && constant_time_equal(tag, {tag_.data(), tag.size()})) return true;
    if (!failure_kept || tag.empty()) return false;
  }
  if (state_ == State::keystream) {
    const bool authentic = keystream_open_->finish(tag);
    // Verified, the message is over (GCM then wants a new nonce), and so is
    // a ChaCha20-Poly1305 message that failed (its context starts anew).
    // A GCM message that failed stays open in OpenSSL, its counter going on
    // at the next update: from here it is OpenSSL's, brought to the same
    // point by a replay (a forgery costs that one decryption on the CPU).
    if (authentic || alg_.id == AlgorithmId::chacha20_poly1305) {
      state_ = State::aad;
      forget_replay();
      return authentic;
    }
    if (!replayable_) return false;  // what follows is refused (keystream_payload)
  }
  to_stream();
  // The tag is only read here: an EVP_CIPHER_CTX_ctrl that cannot take a
  // const buffer.
  std::array<std::uint8_t, kMaxTag> copy{};
  std::copy(tag.begin(), tag.end(), copy.begin());
  return EVP_CIPHER_CTX_ctrl(stream_.get(), EVP_CTRL_AEAD_SET_TAG, static_cast<int>(tag.size()),
                             copy.data()) == 1 &&
         finish_stream();
}

}  // namespace cryptoaccel::provider
