// AES-GCM and ChaCha20-Poly1305 over a one-shot AeadSession.
//
// EVP streams an AEAD message (AAD updates, payload updates, final); the
// framework seals or opens a whole message at once. AAD is buffered; the
// payload must come in one update, which is how libssl (TLS 1.2 and 1.3)
// and `openssl speed` use AEADs. A decryption needs its tag before the
// payload, so that no unauthenticated plaintext is ever released.
//
// TLS 1.2 records come whole through the "tlsaad" path: the provider builds
// the nonce (GCM: fixed IV || explicit nonce; ChaCha20-Poly1305: IV xor
// sequence number), corrects the AAD's length and seals or verifies the tag
// in place, as libssl expects of a provided cipher.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "cipher_common.hpp"
#include "cipher_families.hpp"
#include "dispatch.hpp"
#include "errors.hpp"

namespace cryptoaccel::provider {
namespace {

constexpr std::size_t kTagLen = 16;        // TLS and OpenSSL's default tag length
constexpr std::size_t kTlsAadLen = 13;     // EVP_AEAD_TLS1_AAD_LEN
constexpr std::size_t kGcmExplicitIv = 8;  // EVP_GCM_TLS_EXPLICIT_IV_LEN
constexpr std::size_t kGcmFixedIv = 4;     // EVP_GCM_TLS_FIXED_IV_LEN
constexpr std::size_t kMaxIv = 128;

AeadSession open_aead(ProviderContext& pc, const Algorithm& a, Bytes key) {
  const SessionOptions& options = pc.options(a.id);
  try {
    return AeadSession(a.name, key, options);
  } catch (const Error&) {
    if (options.driver.empty()) throw;
  }
  return AeadSession(a.name, key, pc.unpinned());
}

class AeadCtx {
 public:
  AeadCtx(ProviderContext* pc, const Algorithm& a) : pc_(pc), alg_(a), iv_len_(a.iv_size) {
    aad_.reserve(64);  // TLS 1.3 needs 5 bytes: no allocation per record
  }
  AeadCtx(const AeadCtx& other)
      : pc_(other.pc_),
        alg_(other.alg_),
        key_(other.key_),
        encrypt_(other.encrypt_),
        iv_(other.iv_),
        generator_(other.generator_),
        iv_len_(other.iv_len_),
        iv_set_(other.iv_set_),
        iv_generator_(other.iv_generator_),
        aad_(other.aad_),
        tag_(other.tag_),
        tag_len_(other.tag_len_),
        tag_set_(other.tag_set_),
        tag_ready_(other.tag_ready_),
        done_(other.done_),
        failed_(other.failed_),
        tls_aad_(other.tls_aad_),
        tls_aad_set_(other.tls_aad_set_) {
    if (!key_.empty()) session_.emplace(open_aead(*pc_, alg_, key_.span()));
  }
  ~AeadCtx() {
    secure_wipe(iv_.data(), iv_.size());
    secure_wipe(generator_.data(), generator_.size());
    if (!aad_.empty()) secure_wipe(aad_.data(), aad_.size());
    secure_wipe(tag_.data(), tag_.size());
  }

  ProviderContext* pc() const noexcept { return pc_; }

  int init(bool encrypt, const std::uint8_t* key, std::size_t keylen, const std::uint8_t* iv,
           std::size_t ivlen, const OSSL_PARAM params[]) {
    encrypt_ = encrypt;
    if (key != nullptr) {
      check_key_length(alg_, keylen);
      const Bytes k(key, keylen);
      // speed re-keys GCM with the same key every iteration, libssl per
      // record with none: keep the session and its key schedule.
      if (!session_ || !key_.equals(k)) {
        session_.reset();
        session_.emplace(open_aead(*pc_, alg_, k));
        key_.assign(k);
      }
    }
    if (iv != nullptr) {
      set_iv_length(ivlen);
      std::copy(iv, iv + ivlen, iv_.begin());
      iv_set_ = true;
    }
    aad_.clear();
    done_ = failed_ = tag_ready_ = false;
    tls_aad_set_ = false;
    return set_params(params);
  }

  int update(std::uint8_t* out, std::size_t* outl, std::size_t outsz, const std::uint8_t* in,
             std::size_t inl) {
    if (!session_) [[unlikely]]
      return fail(kReasonNotInitialised, "no key set");
    if (tls_aad_set_) return tls_record(out, outl, outsz, in, inl);
    if (out == nullptr) {  // EVP's way of passing AAD
      if (done_)
        return fail(static_cast<int>(ErrorCode::invalid_argument), "AAD after the payload");
      aad_.insert(aad_.end(), in, in + inl);
      *outl = inl;
      return 1;
    }
    *outl = 0;
    if (inl == 0) return 1;
    if (done_)
      return fail(static_cast<int>(ErrorCode::unsupported),
                  "the payload of a message must come in one update (the framework seals and "
                  "opens whole messages)");
    if (outsz < inl) return fail(kReasonOutputTooSmall, "output buffer smaller than the input");
    if (!message({in, inl}, {out, inl})) return 0;
    *outl = inl;
    return 1;
  }

  int final(std::uint8_t*, std::size_t* outl, std::size_t) {
    *outl = 0;
    if (!session_) return fail(kReasonNotInitialised, "no key set");
    const bool ok = done_ ? !failed_ : message({}, {});
    // Every message needs a fresh nonce and (to decrypt) its own tag.
    done_ = false;
    iv_set_ = false;
    tag_set_ = false;
    aad_.clear();
    return ok ? 1 : 0;
  }

  int get_params(OSSL_PARAM params[]) {
    OSSL_PARAM* p;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) &&
        !OSSL_PARAM_set_size_t(p, alg_.key_size.min))
      return bad_param(p);
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) &&
        !OSSL_PARAM_set_size_t(p, iv_len_))
      return bad_param(p);
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) &&
        !OSSL_PARAM_set_size_t(p, tag_len_))
      return bad_param(p);
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IV)) &&
        !OSSL_PARAM_set_octet_string(p, iv_.data(), iv_len_))
      return bad_param(p);
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_UPDATED_IV)) &&
        !OSSL_PARAM_set_octet_string(p, iv_.data(), iv_len_))
      return bad_param(p);
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD)) &&
        !OSSL_PARAM_set_size_t(p, kTagLen))
      return bad_param(p);
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TAG))) {
      if (!encrypt_ || !tag_ready_)
        return fail(static_cast<int>(ErrorCode::invalid_argument),
                    "the tag is available after an encryption's final");
      if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data_size == 0 || p->data_size > tag_len_)
        return fail(static_cast<int>(ErrorCode::invalid_tag_length), "tag buffer of wrong size");
      std::copy(tag_.begin(), tag_.begin() + static_cast<std::ptrdiff_t>(p->data_size),
                static_cast<std::uint8_t*>(p->data));
      p->return_size = p->data_size;
    }
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN)) && !generate_iv(p))
      return 0;
    return 1;
  }

  int set_params(const OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    const OSSL_PARAM* p;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_IVLEN))) {
      std::size_t v = 0;
      if (!read_size(pc_, p, v)) return 0;
      set_iv_length(v);
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_KEYLEN))) {
      std::size_t v = 0;
      if (!read_size(pc_, p, v)) return 0;
      check_key_length(alg_, v);
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_PADDING))) {
      unsigned ignored = 0;  // speed turns padding off for every cipher
      if (!read_uint(pc_, p, ignored)) return 0;
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TAG)) && !set_tag(p)) return 0;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD))) {
      if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data_size != kTlsAadLen)
        return fail(kReasonBadParameter, "TLS AAD must be 13 bytes");
      const auto* aad = static_cast<const std::uint8_t*>(p->data);
      std::copy(aad, aad + kTlsAadLen, tls_aad_.begin());
      tls_aad_set_ = true;
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED)) &&
        !set_fixed_iv(p))
      return 0;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV)) &&
        !set_invocation(p))
      return 0;
    return 1;
  }

 private:
  bool gcm() const noexcept { return alg_.mode == CipherMode::gcm; }

  void set_iv_length(std::size_t n) {
    if (!alg_.iv_sizes.contains(n) || n > kMaxIv)
      throw InvalidIvLength(std::string(alg_.name) + " takes a nonce of " +
                            std::to_string(alg_.iv_sizes.min) + " to " +
                            std::to_string(alg_.iv_sizes.max) + " bytes, not " + std::to_string(n));
    iv_len_ = n;
  }

  bool set_tag(const OSSL_PARAM* p) {
    if (p->data_type != OSSL_PARAM_OCTET_STRING || !alg_.tag_sizes.contains(p->data_size))
      return fail(static_cast<int>(ErrorCode::invalid_tag_length), "tag of wrong length") != 0;
    if (p->data != nullptr) {
      if (encrypt_)
        return fail(static_cast<int>(ErrorCode::invalid_argument),
                    "a tag is set only to decrypt") != 0;
      const auto* tag = static_cast<const std::uint8_t*>(p->data);
      std::copy(tag, tag + p->data_size, tag_.begin());
      tag_set_ = true;
    }
    tag_len_ = p->data_size;
    return true;
  }

  // Seals or opens one whole message with the buffered AAD.
  bool message(Bytes in, MutableBytes out) {
    if (!iv_set_) return fail(kReasonNotInitialised, "no nonce set for this message") != 0;
    done_ = true;
    const Bytes iv(iv_.data(), iv_len_);
    if (encrypt_) {
      session_->seal(iv, aad_, in, out, {tag_.data(), std::max(tag_len_, kTagLen)});
      tag_ready_ = true;
      return true;
    }
    if (!tag_set_) {
      failed_ = true;
      return fail(static_cast<int>(ErrorCode::invalid_argument),
                  "set the tag before the ciphertext: no unauthenticated plaintext is released") !=
             0;
    }
    try {
      session_->open(iv, aad_, in, {tag_.data(), tag_len_}, out);
    } catch (const AuthenticationFailed&) {
      failed_ = true;
      throw;
    }
    return true;
  }

  // One TLS 1.2 record, whole, after "tlsaad".
  int tls_record(std::uint8_t* out, std::size_t* outl, std::size_t outsz, const std::uint8_t* in,
                 std::size_t inl) {
    tls_aad_set_ = false;  // one record per "tlsaad"
    const std::size_t explicit_iv = gcm() ? kGcmExplicitIv : 0;
    if (out == nullptr || inl < explicit_iv + kTagLen)
      return fail(static_cast<int>(ErrorCode::invalid_length), "TLS record too short");
    if (outsz < inl) return fail(kReasonOutputTooSmall, "output buffer smaller than the record");
    const std::size_t payload = inl - explicit_iv - kTagLen;
    std::array<std::uint8_t, 12> nonce{};
    if (gcm()) {
      if (iv_len_ != 12)
        return fail(static_cast<int>(ErrorCode::invalid_iv_length),
                    "TLS GCM needs a 12-byte nonce");
      // The explicit nonce is the record's sequence number when sealing
      // (RFC 5288 3: unique per key by construction) and read from the
      // record when opening.
      std::copy(iv_.begin(), iv_.begin() + kGcmFixedIv, nonce.begin());
      const std::uint8_t* explicit_nonce = encrypt_ ? tls_aad_.data() : in;
      std::copy(explicit_nonce, explicit_nonce + kGcmExplicitIv, nonce.begin() + kGcmFixedIv);
      if (encrypt_) std::copy(nonce.begin() + kGcmFixedIv, nonce.end(), out);
    } else {
      // RFC 7905: the IV xor the 64-bit sequence number, right-aligned.
      std::copy(iv_.begin(), iv_.begin() + 12, nonce.begin());
      for (std::size_t i = 0; i < 8; ++i) nonce[4 + i] ^= tls_aad_[i];
    }
    tls_aad_[kTlsAadLen - 2] = static_cast<std::uint8_t>(payload >> 8);
    tls_aad_[kTlsAadLen - 1] = static_cast<std::uint8_t>(payload);
    const Bytes aad(tls_aad_.data(), kTlsAadLen);
    const Bytes body(in + explicit_iv, payload);
    const MutableBytes plain_out(out + explicit_iv, payload);
    if (encrypt_) {
      session_->seal(nonce, aad, body, plain_out, {out + explicit_iv + payload, kTagLen});
      *outl = inl;
    } else {
      session_->open(nonce, aad, body, {in + explicit_iv + payload, kTagLen}, plain_out);
      *outl = payload;
    }
    return 1;
  }

  // "tlsivfixed": the fixed part of a GCM nonce; the invocation field that
  // "tlsivgen" hands out starts at a random value.
  bool set_fixed_iv(const OSSL_PARAM* p) {
    if (!gcm() || p->data_type != OSSL_PARAM_OCTET_STRING)
      return fail(kReasonBadParameter, "tlsivfixed applies to GCM only") != 0;
    const std::size_t n = p->data_size;
    const auto* fixed = static_cast<const std::uint8_t*>(p->data);
    if (n == iv_len_) {
      std::copy(fixed, fixed + n, generator_.begin());
    } else {
      if (n < kGcmFixedIv || iv_len_ - n < kGcmExplicitIv)
        return fail(static_cast<int>(ErrorCode::invalid_iv_length), "bad fixed IV length") != 0;
      std::copy(fixed, fixed + n, generator_.begin());
      if (encrypt_ && RAND_bytes(generator_.data() + n, static_cast<int>(iv_len_ - n)) != 1)
        return fail(kReasonInternal, "no random bytes for the invocation field") != 0;
    }
    // libssl seals TLS 1.2 records with the fixed part in iv_.
    std::copy(generator_.begin(), generator_.begin() + static_cast<std::ptrdiff_t>(iv_len_),
              iv_.begin());
    iv_generator_ = true;
    return true;
  }

  bool generate_iv(OSSL_PARAM* p) {
    if (!iv_generator_ || p->data_type != OSSL_PARAM_OCTET_STRING)
      return fail(kReasonNotInitialised, "tlsivgen needs tlsivfixed first") != 0;
    std::copy(generator_.begin(), generator_.begin() + static_cast<std::ptrdiff_t>(iv_len_),
              iv_.begin());
    iv_set_ = true;
    const std::size_t n = p->data_size == 0 || p->data_size > iv_len_ ? iv_len_ : p->data_size;
    std::copy(iv_.begin() + static_cast<std::ptrdiff_t>(iv_len_ - n),
              iv_.begin() + static_cast<std::ptrdiff_t>(iv_len_),
              static_cast<std::uint8_t*>(p->data));
    p->return_size = n;
    // The invocation field (at least the last 8 bytes) counts messages.
    for (std::size_t i = iv_len_; i-- > iv_len_ - 8;)
      if (++generator_[i] != 0) break;
    return true;
  }

  bool set_invocation(const OSSL_PARAM* p) {
    if (!iv_generator_ || encrypt_ || p->data_type != OSSL_PARAM_OCTET_STRING ||
        p->data_size == 0 || p->data_size > iv_len_)
      return fail(kReasonBadParameter, "tlsivinv: decryption after tlsivfixed only") != 0;
    const auto* inv = static_cast<const std::uint8_t*>(p->data);
    std::copy(inv, inv + p->data_size,
              generator_.begin() + static_cast<std::ptrdiff_t>(iv_len_ - p->data_size));
    std::copy(generator_.begin(), generator_.begin() + static_cast<std::ptrdiff_t>(iv_len_),
              iv_.begin());
    iv_set_ = true;
    return true;
  }

  int fail(int reason, const char* what) const {
    CRYPTOACCEL_RAISE(pc_, reason, "cryptoaccel: %s: %s", std::string(alg_.name).c_str(), what);
    return 0;
  }
  int bad_param(const OSSL_PARAM* p) const {
    CRYPTOACCEL_RAISE(pc_, kReasonBadParameter, "cryptoaccel: cannot return parameter '%s'",
                      p->key);
    return 0;
  }

  ProviderContext* pc_;
  const Algorithm& alg_;
  std::optional<AeadSession> session_;
  KeyCopy key_;
  bool encrypt_ = true;
  std::array<std::uint8_t, kMaxIv> iv_{};         // this message's nonce
  std::array<std::uint8_t, kMaxIv> generator_{};  // tlsivfixed/tlsivgen state
  std::size_t iv_len_;
  bool iv_set_ = false;
  bool iv_generator_ = false;
  std::vector<std::uint8_t> aad_;
  std::array<std::uint8_t, 16> tag_{};
  std::size_t tag_len_ = kTagLen;
  bool tag_set_ = false;    // decryption: the expected tag is known
  bool tag_ready_ = false;  // encryption: the tag was computed
  bool done_ = false;       // this message's payload was processed
  bool failed_ = false;     // ... and failed (authentication)
  std::array<std::uint8_t, kTlsAadLen> tls_aad_{};
  bool tls_aad_set_ = false;
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
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
      OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, nullptr, 0),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, nullptr, 0),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, nullptr, 0),
      OSSL_PARAM_END};
  return kParams;
}

template <AlgorithmId Id>
using AeadTable = CipherTable<AeadCtx, Id, &gettable_ctx_params, &settable_ctx_params>;

}  // namespace

const OSSL_DISPATCH* aead_functions(AlgorithmId id) {
  return table_of<AeadTable>(id);
}

}  // namespace cryptoaccel::provider
