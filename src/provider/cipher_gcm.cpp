// AES-GCM with OpenSSL's EVP contract (the default provider's
// ciphercommon_gcm.c is the reference): the nonce's life cycle (given,
// generated, in use, finished — a finished nonce is never used again), the
// tag, and libssl's TLS 1.2 records ("tlsaad", "tlsivfixed", "tlsivgen",
// "tlsivinv"). The cryptography is AeadMessage's: whole messages on the
// dispatcher's driver, streamed ones in OpenSSL's implementation.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
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

constexpr std::size_t kTagLen = 16;         // EVP_GCM_TLS_TAG_LEN, GCM_TAG_MAX_SIZE
constexpr std::size_t kTlsAadLen = 13;      // EVP_AEAD_TLS1_AAD_LEN
constexpr std::size_t kExplicitIv = 8;      // EVP_GCM_TLS_EXPLICIT_IV_LEN
constexpr std::size_t kFixedIv = 4;         // EVP_GCM_TLS_FIXED_IV_LEN
constexpr std::size_t kMaxIv = 128;         // GCM_IV_MAX_SIZE
constexpr std::size_t kDefaultIv = 12;      // GCM_IV_DEFAULT_SIZE
constexpr std::size_t kWholeIv = SIZE_MAX;  // "tlsivfixed" of length -1: the whole IV

enum class IvState : std::uint8_t {
  unset,     // nothing given yet
  buffered,  // given (or generated), not yet used
  in_use,    // a message under it has started
  finished   // its message ended, or its length changed: never used again
};

const OSSL_PARAM* settable_ctx_params(void*, void*);

class GcmCtx {
 public:
  GcmCtx(ProviderContext* pc, const Algorithm& a) : pc_(pc), alg_(a), message_(pc, a) {}
  GcmCtx(const GcmCtx&) = default;
  ~GcmCtx() {
    secure_wipe(iv_.data(), iv_.size());
    secure_wipe(buf_.data(), buf_.size());
  }

  ProviderContext* pc() const noexcept { return pc_; }

  int init(bool encrypt, const std::uint8_t* key, std::size_t keylen, const std::uint8_t* iv,
           std::size_t ivlen, const OSSL_PARAM params[]) {
    // A message under way that gets a key or a direction and no nonce goes
    // on as OpenSSL's does (AeadMessage::restart_in_stream).
    if (iv == nullptr && iv_state_ == IvState::in_use && (key != nullptr || encrypt != encrypt_)) {
      // OpenSSL takes the direction before it refuses a key's length (which
      // OpenSSL 4.0's EVP may pass from a parameter set).
      if (key != nullptr && !alg_.key_size.contains(keylen) && encrypt != encrypt_)
        restart_or_refuse(encrypt, Bytes());
      if (key != nullptr) check_key_length(alg_, keylen);
      restart_or_refuse(encrypt, key != nullptr ? Bytes(key, keylen) : Bytes());
      if (key != nullptr) tls_records_ = 0;
      return set_params(params);
    }
    encrypt_ = encrypt;
    if (iv != nullptr) {
      if (ivlen == 0 || ivlen > kMaxIv)
        return fail(static_cast<int>(ErrorCode::invalid_iv_length), "IV of 0 or over 128 bytes");
      if (ivlen < kExplicitIv && iv_generator_)
        return fail(static_cast<int>(ErrorCode::invalid_iv_length),
                    "TLS records (a 'tlsivfixed' was given) need an IV of at least 8 bytes");
      iv_len_ = ivlen;
      std::copy(iv, iv + ivlen, iv_.begin());
      iv_state_ = IvState::buffered;
    }
    if (key != nullptr) {
      check_key_length(alg_, keylen);
      message_.set_key({key, keylen});
      tls_records_ = 0;
    }
    return set_params(params);
  }

  // EVP_EncryptUpdate/DecryptUpdate: AAD when `out` is NULL.
  int update(std::uint8_t* out, std::size_t* outl, std::size_t outsz, const std::uint8_t* in,
             std::size_t inl) {
    *outl = 0;
    if (inl == 0) return 1;
    if (outsz < inl) return fail(kReasonOutputTooSmall, "output buffer smaller than the input");
    return run(out, outl, in, inl) ? 1 : fail_operation();
  }

  // A failure leaves the error queue empty, as OpenSSL's does: Python's
  // `cryptography` reads exactly that as InvalidTag.
  int final(std::uint8_t*, std::size_t* outl, std::size_t) {
    if (!run(nullptr, outl, nullptr, 0)) return 0;
    *outl = 0;
    return 1;
  }

  // EVP_Cipher(): the same, with a NULL input as final, and the input's
  // length as the result.
  int cipher(std::uint8_t* out, std::size_t* outl, std::size_t outsz, const std::uint8_t* in,
             std::size_t inl) {
    if (outsz < inl) return fail(kReasonOutputTooSmall, "output buffer smaller than the input");
    if (!run(out, outl, in, inl)) return 0;
    *outl = inl;
    return 1;
  }

  int get_params(OSSL_PARAM params[]) {
    OSSL_PARAM* p;
    if ((p = find_param(params, OSSL_CIPHER_PARAM_IVLEN)) && !OSSL_PARAM_set_size_t(p, iv_len_))
      return bad_param(p);
    if ((p = find_param(params, OSSL_CIPHER_PARAM_KEYLEN)) &&
        !OSSL_PARAM_set_size_t(p, alg_.key_size.min))
      return bad_param(p);
    if ((p = find_param(params, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) &&
        !OSSL_PARAM_set_size_t(p, tag_len_.value_or(kTagLen)))
      return bad_param(p);
    for (const char* name : {OSSL_CIPHER_PARAM_IV, OSSL_CIPHER_PARAM_UPDATED_IV}) {
      if ((p = find_param(params, name)) == nullptr) continue;
      // Where OpenSSL makes an encryption's random IV when it is read
      // before the first update, so does this; elsewhere there is none yet.
      if (iv_state_ == IvState::unset &&
          (!pc_->openssl_default().contract().gcm_iv_made_when_read || tls_aad_len_ ||
           !make_random_iv()))
        return 0;
      if (iv_len_ > p->data_size)
        return fail(static_cast<int>(ErrorCode::invalid_iv_length), "IV buffer too small");
      if (!set_iv_param(p, iv_.data(), iv_len_)) return bad_param(p);
    }
    if ((p = find_param(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD)) &&
        !OSSL_PARAM_set_size_t(p, tls_aad_pad_))
      return bad_param(p);
    if ((p = find_param(params, OSSL_CIPHER_PARAM_AEAD_TAG))) {
      if (p->data_size == 0 || p->data_size > kTagLen || !encrypt_ || !tag_len_)
        return fail(static_cast<int>(ErrorCode::invalid_tag_length),
                    "the tag is read after an encryption's final, 1 to 16 bytes");
      if (!OSSL_PARAM_set_octet_string(p, buf_.data(), p->data_size)) return bad_param(p);
    }
    if ((p = find_param(params, OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN))) {
      if (p->data == nullptr || p->data_type != OSSL_PARAM_OCTET_STRING ||
          !generate_iv(static_cast<std::uint8_t*>(p->data), p->data_size))
        return 0;
    }
    return 1;
  }

  int set_params(const OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    // Every name this takes starts with 't' or 'i'. EVP sets "padding" at
    // each init: that needs no look at the names below.
    static_assert(OSSL_CIPHER_PARAM_AEAD_TAG[0] == 't' && OSSL_CIPHER_PARAM_AEAD_IVLEN[0] == 'i' &&
                  OSSL_CIPHER_PARAM_AEAD_TLS1_AAD[0] == 't' &&
                  OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED[0] == 't' &&
                  OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV[0] == 't');
    bool any_of_ours = false;
    for (const OSSL_PARAM* q = params; q->key != nullptr && !any_of_ours; ++q)
      any_of_ours = q->key[0] == 't' || q->key[0] == 'i';
    if (!any_of_ours) return 1;
    if (refuses_repeated_param(pc_, params, settable_ctx_params(nullptr, nullptr))) return 0;
    const OSSL_PARAM* p;
    if ((p = find_param(params, OSSL_CIPHER_PARAM_AEAD_TAG))) {
      void* to = buf_.data();
      std::size_t n = 0;
      if (!OSSL_PARAM_get_octet_string(p, &to, kTagLen, &n))
        return fail(static_cast<int>(ErrorCode::invalid_tag_length), "tag of over 16 bytes");
      if (n == 0 || encrypt_)
        return fail(static_cast<int>(ErrorCode::invalid_argument),
                    "a tag of 1 to 16 bytes is set only to decrypt");
      tag_len_ = n;
      tag_given_ = true;
    }
    if ((p = find_param(params, OSSL_CIPHER_PARAM_AEAD_IVLEN))) {
      std::size_t n = 0;
      if (!read_size(pc_, p, n)) return 0;
      if (n == 0 || n > kMaxIv)
        return fail(static_cast<int>(ErrorCode::invalid_iv_length), "IV of 0 or over 128 bytes");
      if (n < kExplicitIv && iv_generator_)
        return fail(static_cast<int>(ErrorCode::invalid_iv_length),
                    "TLS records (a 'tlsivfixed' was given) need an IV of at least 8 bytes");
      if (n != iv_len_) {
        // An IV given for the old length must not be used padded or cut.
        if (iv_state_ != IvState::unset) iv_state_ = IvState::finished;
        iv_len_ = n;
      }
    }
    if ((p = find_param(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD))) {
      if (p->data_type != OSSL_PARAM_OCTET_STRING)
        return fail(kReasonBadParameter, "'tlsaad' must be an octet string");
      if (iv_len_ < kExplicitIv)
        return fail(static_cast<int>(ErrorCode::invalid_iv_length),
                    "TLS records need an IV of at least 8 bytes");
      const std::size_t pad = tls_init(static_cast<const std::uint8_t*>(p->data), p->data_size);
      if (pad == 0) return fail(kReasonBadParameter, "TLS AAD of a wrong length or length field");
      tls_aad_pad_ = pad;
    }
    if ((p = find_param(params, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED))) {
      if (p->data_type != OSSL_PARAM_OCTET_STRING || !set_fixed_iv(p))
        return fail(static_cast<int>(ErrorCode::invalid_iv_length),
                    "'tlsivfixed' must be the whole IV (-1) or 4 bytes or more, leaving 8 for "
                    "the invocation field");
    }
    if ((p = find_param(params, OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV))) {
      if (p->data == nullptr || p->data_type != OSSL_PARAM_OCTET_STRING ||
          !set_invocation(static_cast<const std::uint8_t*>(p->data), p->data_size))
        return 0;
    }
    return 1;
  }

 private:
  // ciphercommon_gcm.c's gcm_cipher_internal: AAD, payload or (in == NULL)
  // final.
  bool run(std::uint8_t* out, std::size_t* outl, const std::uint8_t* in, std::size_t inl) {
    *outl = 0;
    if (tls_aad_len_) return tls_record(out, outl, in, inl);
    if (!message_.has_key() || iv_state_ == IvState::finished) return false;
    if (iv_state_ == IvState::unset && !make_random_iv()) return false;
    if (iv_state_ == IvState::buffered) start_message();
    if (in != nullptr) {
      if (out == nullptr) {
        if (!message_.aad({in, inl})) return false;
      } else {
        const Bytes expected = !encrypt_ && tag_given_ ? Bytes(buf_.data(), *tag_len_) : Bytes();
        if (!message_.payload({in, inl}, out, expected)) return false;
      }
      *outl = inl;
      return true;
    }
    // The message ends here: a tag given for it is no longer news to the
    // next one, whose payload then goes to the keystream path rather than
    // to a whole open that would fail on the old tag and decrypt again
    // (OpenVPN sets each packet's tag after its payload). The tag itself
    // stays, as in OpenSSL, for a final that gets no other.
    tag_given_ = false;
    if (encrypt_) {
      if (!message_.finish_encrypt(std::span<std::uint8_t, kTagLen>(buf_.data(), kTagLen)))
        return false;
      tag_len_ = kTagLen;
    } else {
      // The tag must be given before a decryption ends; saying so on the
      // error queue where the running OpenSSL does.
      if (!tag_len_) {
        if (pc_->openssl_default().contract().gcm_tag_not_set_raised)
          fail(kReasonNotInitialised, "the tag is set before a decryption ends");
        return false;
      }
      if (!message_.finish_decrypt({buf_.data(), *tag_len_})) return false;
    }
    iv_state_ = IvState::finished;  // never reuse the IV
    return true;
  }

  // The message under way follows a key or direction given without a nonce
  // in OpenSSL's implementation. Where it cannot (a decryption past what it
  // keeps for a replay) the change is refused, and so is the rest of the
  // message, as if its nonce were spent: neither direction nor key may
  // stay half changed, and no final may then succeed on the old ones.
  void restart_or_refuse(bool encrypt, Bytes key) {
    try {
      message_.restart_in_stream(encrypt, key);
    } catch (...) {
      iv_state_ = IvState::finished;
      throw;
    }
    encrypt_ = encrypt;
  }

  // An encryption with no IV gets a random one of at least 96 bits.
  bool make_random_iv() {
    if (!encrypt_ || iv_len_ < kDefaultIv ||
        !pc_->openssl_default().random_bytes(iv_.data(), iv_len_, false))
      return false;
    iv_state_ = IvState::buffered;
    return true;
  }

  void start_message() {
    message_.begin(encrypt_, {iv_.data(), iv_len_});
    iv_state_ = IvState::in_use;
  }

  // "tlsaad": kept in buf_ (as OpenSSL does) with its length field less the
  // explicit IV, and less the tag when decrypting; OpenSSL records the AAD
  // before checking it, so a refused one still marks the next call a record.
  std::size_t tls_init(const std::uint8_t* aad, std::size_t n) {
    if (n != kTlsAadLen) return 0;
    std::copy(aad, aad + n, buf_.begin());
    tls_aad_len_ = n;
    std::size_t length = static_cast<std::size_t>(buf_[n - 2]) << 8 | buf_[n - 1];
    if (length < kExplicitIv) return 0;
    length -= kExplicitIv;
    if (!encrypt_) {
      if (length < kTagLen) return 0;
      length -= kTagLen;
    }
    buf_[n - 2] = static_cast<std::uint8_t>(length >> 8);
    buf_[n - 1] = static_cast<std::uint8_t>(length);
    return kTagLen;
  }

  // -1 (what OpenSSH passes) restores the whole IV, of at least 8 bytes;
  // otherwise a fixed field of at least 4 bytes leaves at least 8 for the
  // invocation field, which an encryption starts at random. Longer than the
  // IV is refused.
  bool set_fixed_iv(const OSSL_PARAM* p) {
    const std::size_t n = p->data_size;
    const auto* fixed = static_cast<const std::uint8_t*>(p->data);
    if (fixed == nullptr) return false;
    if (n == kWholeIv) {
      if (iv_len_ < kExplicitIv) return false;  // no room for a record's explicit IV
      std::copy(fixed, fixed + iv_len_, iv_.begin());
    } else {
      if (n < kFixedIv || n > iv_len_ || iv_len_ - n < kExplicitIv) return false;
      std::copy(fixed, fixed + n, iv_.begin());
      if (encrypt_ && !pc_->openssl_default().random_bytes(iv_.data() + n, iv_len_ - n, false))
        return false;
    }
    iv_generator_ = true;
    iv_state_ = IvState::buffered;
    return true;
  }

  // "tlsivgen": starts a message under the current IV, hands out its last
  // `n` bytes and counts the invocation field up for the next one.
  bool generate_iv(std::uint8_t* out, std::size_t n) {
    if (!iv_generator_ || !message_.has_key() || iv_len_ < kExplicitIv) return false;
    start_message();
    if (n == 0 || n > iv_len_) n = iv_len_;
    std::copy(iv_.begin() + static_cast<std::ptrdiff_t>(iv_len_ - n),
              iv_.begin() + static_cast<std::ptrdiff_t>(iv_len_), out);
    for (std::size_t i = iv_len_; i-- > iv_len_ - kExplicitIv;)
      if (++iv_[i] != 0) break;
    iv_state_ = IvState::in_use;
    return true;
  }

  // "tlsivinv": a decryption's invocation field, from the peer.
  bool set_invocation(const std::uint8_t* in, std::size_t n) {
    if (!iv_generator_ || !message_.has_key() || encrypt_ || n > iv_len_) return false;
    std::copy(in, in + n, iv_.begin() + static_cast<std::ptrdiff_t>(iv_len_ - n));
    start_message();
    return true;
  }

  // One TLS 1.2 record in place after "tlsaad": explicit IV || payload ||
  // tag, sealed or opened whole by the driver. Its IV is never used again.
  bool tls_record(std::uint8_t* out, std::size_t* outl, const std::uint8_t* in, std::size_t inl) {
    bool ok = tls_record_body(out, outl, in, inl);
    iv_state_ = IvState::finished;
    tls_aad_len_.reset();
    return ok;
  }
  bool tls_record_body(std::uint8_t* out, std::size_t* outl, const std::uint8_t* in,
                       std::size_t inl) {
    if (!message_.has_key() || out != in || inl < kExplicitIv + kTagLen) return false;
    if (encrypt_ && ++tls_records_ == 0) return false;  // 2^64 records under one key
    const std::array<std::uint8_t, kMaxIv> before = iv_;
    if (encrypt_ ? !generate_iv(out, kExplicitIv) : !set_invocation(in, kExplicitIv)) return false;
    const Bytes nonce(before.data(), iv_len_);
    const Bytes aad(buf_.data(), *tls_aad_len_);
    tag_len_ = kTagLen;  // OpenSSL's one-shot record sets it, whatever follows
    const std::size_t payload = inl - kExplicitIv - kTagLen;
    std::uint8_t* body = out + kExplicitIv;
    if (encrypt_) {
      message_.session().seal(nonce, aad, {body, payload}, {body, payload},
                              {body + payload, kTagLen});
      *outl = inl;
      return true;
    }
    try {
      const Bytes nonce_in(iv_.data(), iv_len_);
      message_.session().open(nonce_in, aad, {body, payload}, {body + payload, kTagLen},
                              {body, payload});
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
  int fail_operation() const { return fail(kReasonOperationFailed, "cipher operation failed"); }
  int bad_param(const OSSL_PARAM* p) const {
    CRYPTOACCEL_RAISE(pc_, kReasonBadParameter, "cryptoaccel: cannot return parameter '%s'",
                      p->key);
    return 0;
  }

  ProviderContext* pc_;
  const Algorithm& alg_;
  AeadMessage message_;
  // A context never initialised decrypts, as OpenSSL's (zeroed) do: a
  // tag set on it is taken.
  bool encrypt_ = false;
  std::array<std::uint8_t, kMaxIv> iv_{};
  std::size_t iv_len_ = kDefaultIv;
  IvState iv_state_ = IvState::unset;
  bool iv_generator_ = false;  // "tlsivfixed" was given
  // The tag (computed, or expected), or the TLS AAD: one buffer, as in
  // OpenSSL, so that every read of it answers the same.
  std::array<std::uint8_t, kTagLen> buf_{};
  std::optional<std::size_t> tag_len_;
  // A tag was set for the message under way (before its payload: one open
  // on the driver), not only for an earlier one.
  bool tag_given_ = false;
  std::optional<std::size_t> tls_aad_len_;
  std::size_t tls_aad_pad_ = 0;
  std::uint64_t tls_records_ = 0;
};

const OSSL_PARAM* gettable_ctx_params(void*, void*) {
  static const OSSL_PARAM kParams[] = {
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, nullptr),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, nullptr, 0),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, nullptr, 0),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, nullptr),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, nullptr, 0),
      OSSL_PARAM_END};
  return kParams;
}

const OSSL_PARAM* settable_ctx_params(void*, void*) {
  static const OSSL_PARAM kParams[] = {
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, nullptr),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, nullptr, 0),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, nullptr, 0),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, nullptr, 0),
      OSSL_PARAM_END};
  return kParams;
}

template <AlgorithmId Id>
using GcmTable = CipherTable<GcmCtx, Id, &gettable_ctx_params, &settable_ctx_params>;

}  // namespace

const OSSL_DISPATCH* gcm_functions(AlgorithmId id) {
  return table_of<GcmTable>(id);
}

}  // namespace cryptoaccel::provider
