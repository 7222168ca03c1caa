// The parameters of the block and stream cipher contexts, as OpenSSL's
// generic ciphers (ciphercommon.c), XTS and ChaCha20 answer and take them.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include <string>
#include <string_view>

#include "block_cipher_ctx.hpp"
#include "errors.hpp"
#include "param_lookup.hpp"

namespace cryptoaccel::provider {

int BlockCipherCtx::get_params(OSSL_PARAM params[]) {
  if (alg_.mode == CipherMode::chacha20) return chacha20_get_params(params);
  OSSL_PARAM* p;
  if ((p = find_param(params, OSSL_CIPHER_PARAM_KEYLEN)) &&
      !OSSL_PARAM_set_size_t(p, alg_.key_size.min))
    return bad_param(p);
  if ((p = find_param(params, OSSL_CIPHER_PARAM_IVLEN)) && !OSSL_PARAM_set_size_t(p, alg_.iv_size))
    return bad_param(p);
  if ((p = find_param(params, OSSL_CIPHER_PARAM_PADDING)) &&
      !OSSL_PARAM_set_uint(p, padding_ ? 1 : 0))
    return bad_param(p);
  if ((p = find_param(params, OSSL_CIPHER_PARAM_NUM)) &&
      !OSSL_PARAM_set_uint(p, static_cast<unsigned>(num_)))
    return bad_param(p);
  if ((p = find_param(params, OSSL_CIPHER_PARAM_IV)) && !set_iv_param(p, iv_.data(), alg_.iv_size))
    return bad_param(p);
  if ((p = find_param(params, OSSL_CIPHER_PARAM_UPDATED_IV))) {
    updated_iv_ = chain_;
    if (alg_.mode == CipherMode::ctr && num_ != 0) advance_counter(alg_, updated_iv_, 1);
    if (!set_iv_param(p, updated_iv_.data(), alg_.iv_size)) return bad_param(p);
  }
  // No MAC taken yet is a null pointer of tls-mac-size bytes, as OpenSSL's.
  if ((p = find_param(params, OSSL_CIPHER_PARAM_TLS_MAC)) &&
      !OSSL_PARAM_set_octet_ptr(p, tls_mac_taken_ ? tls_mac_.data() : nullptr, tls_mac_size_))
    return bad_param(p);
  if ((p = find_param(params, OSSL_CIPHER_PARAM_RANDOM_KEY)) && !random_key(p)) return 0;
  return 1;
}

int BlockCipherCtx::set_params(const OSSL_PARAM params[]) {
  if (params == nullptr) return 1;
  if (refuses_repeated_param(pc_, params, block_cipher_settable_ctx_params(alg_.mode))) return 0;
  if (alg_.mode == CipherMode::chacha20) return chacha20_set_params(params);
  const OSSL_PARAM* p;
  if (alg_.mode == CipherMode::xts) {  // OpenSSL's XTS takes only its own key length
    std::size_t v = 0;
    if ((p = find_param(params, OSSL_CIPHER_PARAM_KEYLEN)) &&
        (!read_size(pc_, p, v) || v != alg_.key_size.min))
      return 0;
    return 1;
  }
  if ((p = find_param(params, OSSL_CIPHER_PARAM_PADDING))) {
    unsigned v = 0;
    if (!read_uint(pc_, p, v)) return 0;
    padding_ = v != 0;
  }
  // A key length is not among the parameters these ciphers take: as
  // OpenSSL's fixed-length ciphers, they leave one given unread (EVP hands
  // EVP_CipherInit_ex2's before the init, and EVP_CIPHER_CTX_set_key_length
  // refuses a length that is not settable).
  if ((p = find_param(params, OSSL_CIPHER_PARAM_TLS_VERSION))) {
    unsigned v = 0;
    if (!read_uint(pc_, p, v)) return 0;
    tls_version_ = v;
  }
  if ((p = find_param(params, OSSL_CIPHER_PARAM_TLS_MAC_SIZE))) {
    std::size_t v = 0;
    if (!read_size(pc_, p, v)) return 0;
    if (v > tls_mac_.size()) {
      CRYPTOACCEL_RAISE(pc_, kReasonBadParameter, "cryptoaccel: TLS MAC of %zu bytes", v);
      return 0;
    }
    tls_mac_size_ = v;
  }
  if ((p = find_param(params, OSSL_CIPHER_PARAM_NUM))) {
    unsigned v = 0;
    if (!read_uint(pc_, p, v)) return 0;
    // OpenSSL 3.0 keeps any `num` for ECB and CBC (which do not use it).
    // CTR continues from byte `num` of the current keystream block, as
    // far as that block is known (docs/provider.md, differences); 16 or
    // more would index past OpenSSL's own keystream buffer.
    // OpenSSL since 3.0.20 keeps it below the block size (CTR's is 1).
    if (pc_->openssl_default().contract().num_below_block_size && v >= openssl_block_size(alg_)) {
      CRYPTOACCEL_RAISE(pc_, kReasonBadParameter, "cryptoaccel: %s: num %u is not below %zu",
                        alg_.name.data(), v, openssl_block_size(alg_));
      return 0;
    }
    if (alg_.mode == CipherMode::ctr) {
      if (v >= 16) {
        CRYPTOACCEL_RAISE(pc_, kReasonBadParameter, "cryptoaccel: %s: num %u is not below 16",
                          alg_.name.data(), v);
        return 0;
      }
      // OpenSSL's counter is the next block to generate: 0 starts there,
      // anything else goes back into the block before it.
      if (num_ != 0) advance_counter(alg_, chain_, 1);
      if (v != 0) step_counter_back(chain_);
      num_ = v;
      if (session_) restart(num_);
    }
    num_ = v;
  }
  return 1;
}

// OpenSSL's ChaCha20 answers the key and IV lengths and, from 3.6 on (not
// 3.5), the "updated-iv": its counter and nonce as they stand, the counter
// being the next block to generate (cipher_chacha20.c, chacha20_get_ctx_params;
// 3.6's and 4.0's evpciph_chacha.txt check it as NextIV). Older versions
// leave the parameter unset, which EVP_CIPHER_CTX_get_updated_iv() reports
// as success with the caller's buffer untouched: there ours leaves it too,
// as the differential test checks. The version is the running libcrypto's.
// It takes only the two lengths, at their one value each.
namespace {
bool chacha20_answers_updated_iv() noexcept {
  static const bool answers = OpenSSL_version_num() >= 0x30600000UL;
  return answers;
}
}  // namespace

int BlockCipherCtx::chacha20_get_params(OSSL_PARAM params[]) const {
  OSSL_PARAM* p;
  if ((p = find_param(params, OSSL_CIPHER_PARAM_IVLEN)) && !OSSL_PARAM_set_size_t(p, alg_.iv_size))
    return bad_param(p);
  if ((p = find_param(params, OSSL_CIPHER_PARAM_KEYLEN)) &&
      !OSSL_PARAM_set_size_t(p, alg_.key_size.min))
    return bad_param(p);
  if (chacha20_answers_updated_iv() && (p = find_param(params, OSSL_CIPHER_PARAM_UPDATED_IV))) {
    // chain_ is the current block, num_ the bytes used of it: OpenSSL has
    // counted a block it started as generated.
    updated_iv_ = chain_;
    if (num_ != 0) advance_counter(alg_, updated_iv_, 1);
    if (!set_iv_param(p, updated_iv_.data(), alg_.iv_size)) return bad_param(p);
  }
  return 1;
}

int BlockCipherCtx::chacha20_set_params(const OSSL_PARAM params[]) const {
  for (const char* name : {OSSL_CIPHER_PARAM_KEYLEN, OSSL_CIPHER_PARAM_IVLEN}) {
    const OSSL_PARAM* p = find_param(params, name);
    if (p == nullptr) continue;
    std::size_t v = 0;
    if (!read_size(pc_, p, v)) return 0;
    const bool key = std::string_view(name) == OSSL_CIPHER_PARAM_KEYLEN;
    if (v != (key ? alg_.key_size.min : alg_.iv_size)) {
      CRYPTOACCEL_RAISE(pc_, kReasonBadParameter, "cryptoaccel: chacha20: %s must be %zu", name,
                        key ? alg_.key_size.min : alg_.iv_size);
      return 0;
    }
  }
  return 1;
}

bool BlockCipherCtx::random_key(OSSL_PARAM* p) {
  // EVP_CIPHER_CTX_rand_key() passes the caller's key buffer with a size of
  // 0 (its documented contract is a buffer of the key length), and OpenSSL's
  // own providers ignore the size; a size given and too small is refused.
  if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == nullptr ||
      (p->data_size != 0 && p->data_size < alg_.key_size.min))
    return bad_param(p) != 0;
  auto* key = static_cast<std::uint8_t*>(p->data);
  if (!pc_->openssl_default().random_bytes(key, alg_.key_size.min, true)) {
    CRYPTOACCEL_RAISE(pc_, kReasonInternal, "cryptoaccel: no random bytes for a key");
    return false;
  }
  // DES keys carry odd parity in each byte's low bit.
  for (std::size_t i = 0; i < alg_.key_size.min; ++i) {
    const auto high = static_cast<unsigned>(key[i] & 0xfe);
    key[i] = static_cast<std::uint8_t>(high | ((__builtin_popcount(high) & 1) ^ 1));
  }
  p->return_size = alg_.key_size.min;
  return true;
}

const OSSL_PARAM* block_cipher_gettable_ctx_params(void*, void*) {
  static const OSSL_PARAM kParams[] = {
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
      OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr),
      OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, nullptr),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, nullptr, 0),
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, nullptr, 0),
      {OSSL_CIPHER_PARAM_TLS_MAC, OSSL_PARAM_OCTET_PTR, nullptr, 0, OSSL_PARAM_UNMODIFIED},
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_RANDOM_KEY, nullptr, 0),
      OSSL_PARAM_END};
  return kParams;
}

const OSSL_PARAM* block_cipher_settable_ctx_params(CipherMode mode) {
  static const OSSL_PARAM kGeneric[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr),
                                        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, nullptr),
                                        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_TLS_VERSION, nullptr),
                                        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, nullptr),
                                        OSSL_PARAM_END};
  // XTS and ChaCha20 list the lengths they check (and take only their own).
  static const OSSL_PARAM kXts[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
                                    OSSL_PARAM_END};
  static const OSSL_PARAM kChaCha20[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
                                         OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
                                         OSSL_PARAM_END};
  switch (mode) {
    case CipherMode::xts:
      return kXts;
    case CipherMode::chacha20:
      return kChaCha20;
    default:
      return kGeneric;
  }
}

}  // namespace cryptoaccel::provider
