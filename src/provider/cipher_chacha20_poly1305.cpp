// ChaCha20-Poly1305 with OpenSSL's EVP contract (the default provider's
// cipher_chacha20_poly1305*.c is the reference): a message starts at the
// first AAD or payload after the key or nonce was set and ends at final
// (or with a TLS record). After final, a new message under the same nonce
// is refused where the OpenSSL the module runs in refuses it (since 2026);
// on earlier versions it reuses the nonce, as theirs does. TLS 1.2 records ("tlsaad")
// use the nonce xor the record's sequence number (RFC 7905). The
// cryptography is AeadMessage's.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <algorithm>
#include <array>
#include <optional>

#include "aead_message.hpp"
#include "cipher_common.hpp"
#include "cipher_families.hpp"
#include "errors.hpp"
#include "function_tables.hpp"
#include "param_lookup.hpp"

namespace cryptoaccel::provider {
namespace {

constexpr std::size_t kKeyLen = 32;
constexpr std::size_t kNonceLen = 12;
constexpr std::size_t kTagLen = 16;
constexpr std::size_t kTlsAadLen = 13;

const OSSL_PARAM* settable_ctx_params(void*, void*);

class ChaChaPolyCtx {
 public:
  ChaChaPolyCtx(ProviderContext* pc, const Algorithm& a) : pc_(pc), alg_(a), message_(pc, a) {}
  ChaChaPolyCtx(const ChaChaPolyCtx&) = default;
  ~ChaChaPolyCtx() {
    secure_wipe(nonce_.data(), nonce_.size());
    secure_wipe(tag_.data(), tag_.size());
    secure_wipe(tls_aad_.data(), tls_aad_.size());
  }

  ProviderContext* pc() const noexcept { return pc_; }

  int init(bool encrypt, const std::uint8_t* key, std::size_t keylen, const std::uint8_t* iv,
           std::size_t ivlen, const OSSL_PARAM params[]) {
    // A message under way that only changes direction goes on, as in
    // OpenSSL (AeadMessage::restart_in_stream).
    if (in_message_ && key == nullptr && iv == nullptr && encrypt != encrypt_) {
      try {
        message_.restart_in_stream(encrypt, {});
      } catch (...) {
        // Past what a decryption keeps for a replay: the change is refused,
        // and so is the rest of the message (see GcmCtx::restart_or_refuse).
        message_refused_ = true;
        throw;
      }
    }
    encrypt_ = encrypt;
    if (iv != nullptr && ivlen != kNonceLen)
      return fail(static_cast<int>(ErrorCode::invalid_iv_length), "the nonce is 12 bytes");
    if (iv != nullptr) {
      std::copy(iv, iv + ivlen, nonce_.begin());
      counter_nonce_ = nonce_;
      nonce_spent_ = false;
    }
    if (key != nullptr) {
      check_key_length(alg_, keylen);
      message_.set_key({key, keylen});
    }
    // A new key or nonce ends the message in progress.
    if (key != nullptr || iv != nullptr) {
      in_message_ = false;
      record_refused_ = false;
      message_refused_ = false;
      tls_payload_.reset();
    }
    return set_params(params);
  }

  int update(std::uint8_t* out, std::size_t* outl, std::size_t outsz, const std::uint8_t* in,
             std::size_t inl) {
    if (nonce_spent_ && pc_->openssl_default().contract().chacha_poly_nonce_once)
      return fail(kReasonNotInitialised,
                  "the nonce was used by the message that ended: set a new one");
    if (inl == 0) {  // only EVP_Cipher() and final make or check the tag
      *outl = 0;
      return 1;
    }
    return cipher(out, outl, outsz, in, inl);
  }

  // The output pointer matters as in OpenSSL: after "tlsaad" a final is a
  // record of the wrong length, and fails.
  int final(std::uint8_t* out, std::size_t* outl, std::size_t) {
    // OpenSSL 4.0 refuses a decryption's final before its tag, and the
    // message goes on.
    if (!encrypt_ && tag_len_ == 0 &&
        pc_->openssl_default().contract().chacha_poly_final_waits_for_tag) {
      *outl = 0;
      return fail(kReasonNotInitialised, "the tag is set before a decryption ends");
    }
    const bool ended_by_record = record_refused_;
    if (!run(out, outl, nullptr, 0)) {
      // OpenSSL's encryption ends that message here, making a tag no peer
      // computes, and spends the nonce: this final fails, and the nonce is
      // spent too. (Its decryption fails on that tag.)
      if (ended_by_record && encrypt_) nonce_spent_ = true;
      return 0;
    }
    *outl = 0;
    nonce_spent_ = true;
    return 1;
  }

  int cipher(std::uint8_t* out, std::size_t* outl, std::size_t outsz, const std::uint8_t* in,
             std::size_t inl) {
    if (outsz < inl) return fail(kReasonOutputTooSmall, "output buffer smaller than the input");
    return run(out, outl, in, inl) ? 1 : 0;
  }

  int get_params(OSSL_PARAM params[]) {
    OSSL_PARAM* p;
    if ((p = find_param(params, OSSL_CIPHER_PARAM_IVLEN)) && !OSSL_PARAM_set_size_t(p, kNonceLen))
      return bad_param(p);
    if ((p = find_param(params, OSSL_CIPHER_PARAM_KEYLEN)) && !OSSL_PARAM_set_size_t(p, kKeyLen))
      return bad_param(p);
    if ((p = find_param(params, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) &&
        !OSSL_PARAM_set_size_t(p, tag_len_))
      return bad_param(p);
    if ((p = find_param(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD)) &&
        !OSSL_PARAM_set_size_t(p, tls_aad_pad_))
      return bad_param(p);
    if ((p = find_param(params, OSSL_CIPHER_PARAM_AEAD_TAG))) {
      if (p->data_type != OSSL_PARAM_OCTET_STRING) return bad_param(p);
      if (!encrypt_) return fail(kReasonNotInitialised, "the tag is read after an encryption");
      if (p->data_size == 0 || p->data_size > kTagLen)
        return fail(static_cast<int>(ErrorCode::invalid_tag_length), "tag of 1 to 16 bytes");
      std::copy(tag_.begin(), tag_.begin() + static_cast<std::ptrdiff_t>(p->data_size),
                static_cast<std::uint8_t*>(p->data));
    }
    return 1;
  }

  int set_params(const OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    if (refuses_repeated_param(pc_, params, settable_ctx_params(nullptr, nullptr))) return 0;
    const OSSL_PARAM* p;
    if ((p = find_param(params, OSSL_CIPHER_PARAM_KEYLEN))) {
      std::size_t n = 0;
      if (!read_size(pc_, p, n)) return 0;
      if (n != kKeyLen)
        return fail(static_cast<int>(ErrorCode::invalid_key_length), "the key is 32 bytes");
    }
    if ((p = find_param(params, OSSL_CIPHER_PARAM_IVLEN))) {
      std::size_t n = 0;
      if (!read_size(pc_, p, n)) return 0;
      if (n != kNonceLen)
        return fail(static_cast<int>(ErrorCode::invalid_iv_length), "the nonce is 12 bytes");
      nonce_spent_ = false;  // OpenSSL's IV state starts again, as for a new nonce
    }
    if ((p = find_param(params, OSSL_CIPHER_PARAM_AEAD_TAG))) {
      if (p->data_type != OSSL_PARAM_OCTET_STRING) return bad_param(p);
      if (p->data_size == 0 || p->data_size > kTagLen)
        return fail(static_cast<int>(ErrorCode::invalid_tag_length), "tag of 1 to 16 bytes");
      if (p->data != nullptr) {
        if (encrypt_)
          return fail(static_cast<int>(ErrorCode::invalid_argument),
                      "a tag is set only to decrypt");
        const auto* tag = static_cast<const std::uint8_t*>(p->data);
        std::copy(tag, tag + p->data_size, tag_.begin());
        tag_given_ = true;
      }
      tag_len_ = p->data_size;
    }
    if ((p = find_param(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD))) {
      if (p->data_type != OSSL_PARAM_OCTET_STRING) return bad_param(p);
      const std::size_t pad = tls_init(static_cast<const std::uint8_t*>(p->data), p->data_size);
      if (pad == 0) return fail(kReasonBadParameter, "TLS AAD of a wrong length or length field");
      tls_aad_pad_ = pad;
    }
    if ((p = find_param(params, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED))) {
      if (p->data_type != OSSL_PARAM_OCTET_STRING) return bad_param(p);
      if (p->data_size != kNonceLen || p->data == nullptr)
        return fail(static_cast<int>(ErrorCode::invalid_iv_length),
                    "'tlsivfixed' is the whole 12-byte nonce");
      const auto* fixed = static_cast<const std::uint8_t*>(p->data);
      // In the middle of a message the new nonce takes over its keystream.
      if (in_message_ &&
          !message_.stream_ctrl(EVP_CTRL_AEAD_SET_IV_FIXED, static_cast<int>(kNonceLen),
                                const_cast<std::uint8_t*>(fixed)))
        return bad_param(p);
      std::copy(fixed, fixed + kNonceLen, nonce_.begin());
      counter_nonce_ = nonce_;
    }
    return 1;
  }

 private:
  // cipher_chacha20_poly1305_hw.c's aead_cipher: AAD (out == NULL),
  // payload, or (in == NULL) the end of the message.
  bool run(std::uint8_t* out, std::size_t* outl, const std::uint8_t* in, std::size_t inl) {
    *outl = 0;
    if (!message_.has_key()) return false;
    if (message_refused_) {
      fail(kReasonNotInitialised,
           "a direction change this message could not follow ended it: set a new nonce or key");
      return false;
    }
    if (record_refused_) {
      fail(kReasonNotInitialised,
           "a record of the wrong length ended its message: set a new IV or record");
      return false;
    }
    if (!in_message_) {
      if (tls_payload_ && out != nullptr) return tls_record(out, outl, in, inl);
      message_.begin(encrypt_, {counter_nonce_.data(), kNonceLen});
      in_message_ = true;
      // After "tlsaad" a message that starts with AAD takes the TLS header
      // as its first AAD and ends with a payload of the record's length and
      // its tag, as in OpenSSL.
      if (tls_payload_ && !message_.aad(tls_aad_)) return false;
    }
    if (in != nullptr) {
      if (out == nullptr) {
        if (!message_.aad({in, inl})) return false;
      } else if (tls_payload_) {
        return tls_payload(out, outl, in, inl);
      } else {
        const Bytes expected = !encrypt_ && tag_given_ ? Bytes(tag_.data(), tag_len_) : Bytes();
        if (!message_.payload({in, inl}, out, expected)) return false;
      }
      *outl = inl;
      return true;
    }
    in_message_ = false;
    // A tag given for this message is not one for the next (see GCM's run()).
    tag_given_ = false;
    if (encrypt_) return message_.finish_encrypt(std::span<std::uint8_t, kTagLen>(tag_));
    // OpenSSL's default provider compares the first tag_len bytes, none when
    // no tag was ever given, and so authenticates nothing: a decryption
    // without its tag fails here instead (docs/provider.md, differences).
    if (tag_len_ == 0) return false;
    return message_.finish_decrypt({tag_.data(), tag_len_});
  }

  // The payload and tag of a TLS-style message begun with AAD.
  bool tls_payload(std::uint8_t* out, std::size_t* outl, const std::uint8_t* in, std::size_t inl) {
    const std::size_t payload = *tls_payload_;
    tls_payload_.reset();
    // OpenSSL goes on with such a message as if its AAD had ended: a tag
    // no peer computes. It ends here (docs/provider.md, differences).
    if (inl != payload + kTagLen) {
      record_refused_ = true;
      return fail(static_cast<int>(ErrorCode::invalid_length),
                  "the record's length is not its payload's and tag's") != 0;
    }
    const Bytes tag_in(in + payload, kTagLen);
    if (!message_.payload({in, payload}, out, encrypt_ ? Bytes() : tag_in)) return false;
    in_message_ = false;
    if (encrypt_) {
      if (!message_.finish_encrypt(std::span<std::uint8_t, kTagLen>(tag_))) return false;
      std::copy(tag_.begin(), tag_.end(), out + payload);
      *outl = inl;
      return true;
    }
    if (!message_.finish_decrypt(tag_in)) {
      secure_wipe(out, payload);
      return false;
    }
    *outl = payload;
    return true;
  }

  // "tlsaad": the record's payload length (less the tag when decrypting).
  std::size_t tls_init(const std::uint8_t* aad, std::size_t n) {
    if (n != kTlsAadLen) return 0;
    std::copy(aad, aad + n, tls_aad_.begin());
    std::size_t length = static_cast<std::size_t>(aad[n - 2]) << 8 | aad[n - 1];
    if (!encrypt_) {
      if (length < kTagLen) return 0;
      length -= kTagLen;
      tls_aad_[n - 2] = static_cast<std::uint8_t>(length >> 8);
      tls_aad_[n - 1] = static_cast<std::uint8_t>(length);
    }
    tls_payload_ = length;
    in_message_ = false;
    record_refused_ = false;
    // RFC 7905: the nonce xor the sequence number, which stays the nonce in
    // effect until the next one is given (as OpenSSL's counter does).
    counter_nonce_ = nonce_;
    for (std::size_t i = 0; i < 8; ++i) counter_nonce_[4 + i] ^= tls_aad_[i];
    return kTagLen;
  }

  // One TLS 1.2 record: payload || tag, sealed or opened whole.
  bool tls_record(std::uint8_t* out, std::size_t* outl, const std::uint8_t* in, std::size_t inl) {
    const std::size_t payload = *tls_payload_;
    if (inl != payload + kTagLen) return false;
    tls_payload_.reset();
    const std::array<std::uint8_t, kNonceLen> nonce = counter_nonce_;
    const Bytes aad(tls_aad_.data(), kTlsAadLen);
    if (encrypt_) {
      message_.session().seal(nonce, aad, {in, payload}, {out, payload}, {out + payload, kTagLen});
      std::copy(out + payload, out + payload + kTagLen, tag_.begin());
      *outl = inl;
      return true;
    }
    try {
      message_.session().open(nonce, aad, {in, payload}, {in + payload, kTagLen}, {out, payload});
    } catch (const AuthenticationFailed&) {
      return false;  // the payload is already zeroed
    }
    *outl = payload;
    return true;
  }

  int fail(int reason, const char* what) const {
    CRYPTOACCEL_RAISE(pc_, reason, "cryptoaccel: %s: %s", alg_.name.data(), what);
    return 0;
  }
  int bad_param(const OSSL_PARAM* p) const {
    CRYPTOACCEL_RAISE(pc_, kReasonBadParameter, "cryptoaccel: cannot use parameter '%s'", p->key);
    return 0;
  }

  ProviderContext* pc_;
  const Algorithm& alg_;
  AeadMessage message_;
  // A context never initialised decrypts, as OpenSSL's (zeroed) do: a
  // tag set on it is taken.
  bool encrypt_ = false;
  std::array<std::uint8_t, kNonceLen> nonce_{};          // as given (IV, tlsivfixed)
  std::array<std::uint8_t, kNonceLen> counter_nonce_{};  // in effect (xor a TLS sequence)
  bool in_message_ = false;
  bool nonce_spent_ = false;                 // a message under the nonce ended at final
  std::array<std::uint8_t, kTagLen> tag_{};  // computed (encrypt) or expected (decrypt)
  // 0 until a tag length is given, as OpenSSL reports it.
  std::size_t tag_len_ = 0;
  bool tag_given_ = false;  // for the message under way (see GcmCtx::run)
  std::array<std::uint8_t, kTlsAadLen> tls_aad_{};
  std::optional<std::size_t> tls_payload_;
  bool record_refused_ = false;   // see tls_payload()
  bool message_refused_ = false;  // see init()
  std::size_t tls_aad_pad_ = 0;
};

const OSSL_PARAM* gettable_ctx_params(void*, void*) {
  static const OSSL_PARAM kParams[] = {
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, nullptr),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, nullptr),
      OSSL_PARAM_END};
  return kParams;
}

const OSSL_PARAM* settable_ctx_params(void*, void*) {
  static const OSSL_PARAM kParams[] = {
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, nullptr, 0),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, nullptr, 0),
      OSSL_PARAM_END};
  return kParams;
}

template <AlgorithmId Id>
using ChaChaPolyTable = CipherTable<ChaChaPolyCtx, Id, &gettable_ctx_params, &settable_ctx_params>;

}  // namespace

const OSSL_DISPATCH* chacha20_poly1305_functions() {
  return ChaChaPolyTable<AlgorithmId::chacha20_poly1305>::functions;
}

}  // namespace cryptoaccel::provider
