#include "forwarded.hpp"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstring>
#include <new>
#include <utility>

#include "cipher_common.hpp"
#include "errors.hpp"
#include "function_tables.hpp"
#include "openssl_default.hpp"
#include "provider_context.hpp"

namespace cryptoaccel::provider {
namespace {

// What OpenSSL holds for one forwarded context: the default provider's
// context, and this context's usage, added to the framework's counters
// when it is freed (two atomic additions then, none per request).
struct ForwardedCtx {
  void* inner;
  const ForwardedAlgorithm* algorithm;
  AlgorithmId counted_as;
  bool counts;
  std::uint64_t requests = 0;
  std::uint64_t bytes = 0;
  // For the guards: what OpenSSL's context does not say.
  bool keyed = false;
  bool decrypting = false;
  bool tag_length_given = false;
  // GCM: a fixed IV or "tlsaad" was taken, so OpenSSL's record code may
  // run on the IV (see kGcmExplicitIv).
  bool gcm_tls = false;
};

ForwardedCtx* ctx_of(void* vctx) {
  return static_cast<ForwardedCtx*>(vctx);
}
void* inner_of(void* vctx) {
  return vctx != nullptr ? ctx_of(vctx)->inner : nullptr;
}

template <typename Fn>
Fn* inner_function(const ForwardedAlgorithm& a, int id) {
  return a.function<Fn>(id);
}

// One request of `bytes`, in two scalar additions. Left to itself the
// compiler merges them into one SSE addition; an SSE instruction right after
// OpenSSL's AVX-512 code (which leaves the upper register state dirty on
// small inputs) pays a transition penalty: ChaCha20-Poly1305 at 16 bytes ran
// at half the default provider's speed (docs/performance.md).
inline void count_request(ForwardedCtx& c, std::size_t bytes) noexcept {
  ++c.requests;
  asm volatile("" ::: "memory");  // keeps the two additions apart
  c.bytes += bytes;
}

void flush_usage(ForwardedCtx& c) noexcept {
  if (c.counts && (c.requests != 0 || c.bytes != 0))
    c.algorithm->usage->count(c.counted_as, c.requests, c.bytes);
  c.requests = c.bytes = 0;
}

// The functions every operation has, at its own ids.
struct OperationIds {
  int freectx, dupctx, gettable_params, gettable_ctx_params, settable_ctx_params;
};
constexpr OperationIds ids_of(int operation) {
  switch (operation) {
    case OSSL_OP_CIPHER:
      return {OSSL_FUNC_CIPHER_FREECTX, OSSL_FUNC_CIPHER_DUPCTX, OSSL_FUNC_CIPHER_GETTABLE_PARAMS,
              OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS};
    case OSSL_OP_DIGEST:
      return {OSSL_FUNC_DIGEST_FREECTX, OSSL_FUNC_DIGEST_DUPCTX, OSSL_FUNC_DIGEST_GETTABLE_PARAMS,
              OSSL_FUNC_DIGEST_GETTABLE_CTX_PARAMS, OSSL_FUNC_DIGEST_SETTABLE_CTX_PARAMS};
    default:
      return {OSSL_FUNC_MAC_FREECTX, OSSL_FUNC_MAC_DUPCTX, OSSL_FUNC_MAC_GETTABLE_PARAMS,
              OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS, OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS};
  }
}

void free_inner(const ForwardedAlgorithm& a, void* inner) {
  using FreeFn = void(void*);  // the same shape for every operation
  inner_function<FreeFn>(a, ids_of(a.operation).freectx)(inner);
}

// --- Functions that take the provider context: one copy per slot, since
// nothing else tells them which algorithm OpenSSL asks for.

const ForwardedAlgorithm& slot_of(void* provctx, std::size_t slot) {
  return forwarded_slot(provctx, slot);
}

template <std::size_t Slot>
void* newctx(void* provctx) {
  const ForwardedAlgorithm& a = slot_of(provctx, Slot);
  using NewFn = void*(void*);  // OSSL_FUNC_{cipher,digest,mac}_newctx_fn
  void* inner = inner_function<NewFn>(a, 1)(a.inner_provctx);
  if (inner == nullptr) return nullptr;
  auto* c = new (std::nothrow) ForwardedCtx{inner, &a, a.counted_as, a.counts};
  if (c == nullptr) free_inner(a, inner);
  return c;
}

template <std::size_t Slot>
const OSSL_PARAM* gettable_params(void* provctx) {
  const ForwardedAlgorithm& a = slot_of(provctx, Slot);
  using Fn = const OSSL_PARAM*(void*);
  return inner_function<Fn>(a, ids_of(a.operation).gettable_params)(a.inner_provctx);
}

template <std::size_t Slot, bool Settable>
const OSSL_PARAM* ctx_params(void* vctx, void* provctx) {
  const ForwardedAlgorithm& a = slot_of(provctx, Slot);
  using Fn = const OSSL_PARAM*(void*, void*);
  const OperationIds ids = ids_of(a.operation);
  return inner_function<Fn>(a, Settable ? ids.settable_ctx_params : ids.gettable_ctx_params)(
      inner_of(vctx), a.inner_provctx);
}

template <std::size_t Slot>
int digest_oneshot(void* provctx, const unsigned char* in, size_t inl, unsigned char* out,
                   size_t* outl, size_t outsz) {
  const ForwardedAlgorithm& a = slot_of(provctx, Slot);
  const int ok = inner_function<OSSL_FUNC_digest_digest_fn>(a, OSSL_FUNC_DIGEST_DIGEST)(
      a.inner_provctx, in, inl, out, outl, outsz);
  if (ok && a.counts) a.usage->count(a.counted_as, 1, inl);
  return ok;
}

struct SlotFunctions {
  OSSL_FUNC_cipher_newctx_fn* newctx;
  OSSL_FUNC_cipher_gettable_params_fn* gettable_params;
  OSSL_FUNC_cipher_gettable_ctx_params_fn* gettable_ctx_params;
  OSSL_FUNC_cipher_settable_ctx_params_fn* settable_ctx_params;
  OSSL_FUNC_digest_digest_fn* digest;
};
template <std::size_t... S>
constexpr std::array<SlotFunctions, sizeof...(S)> slot_functions(std::index_sequence<S...>) {
  return {SlotFunctions{&newctx<S>, &gettable_params<S>, &ctx_params<S, false>,
                        &ctx_params<S, true>, &digest_oneshot<S>}...};
}
constexpr auto kSlotFunctions = slot_functions(std::make_index_sequence<Forwarding::kSlots>());

// --- Functions that take OpenSSL's context: shared by every slot.

template <int FreeId>
void freectx(void* vctx) {
  ForwardedCtx* c = ctx_of(vctx);
  if (c == nullptr) return;
  flush_usage(*c);
  inner_function<void(void*)>(*c->algorithm, FreeId)(c->inner);
  delete c;
}

template <int DupId>
void* dupctx(void* vctx) {
  const ForwardedCtx* c = ctx_of(vctx);
  void* inner = inner_function<void*(void*)>(*c->algorithm, DupId)(c->inner);
  if (inner == nullptr) return nullptr;
  // The copy carries the guards' state; its usage starts at zero.
  auto* copy = new (std::nothrow) ForwardedCtx(*c);
  if (copy == nullptr) {
    free_inner(*c->algorithm, inner);
    return nullptr;
  }
  copy->inner = inner;
  copy->requests = copy->bytes = 0;
  return copy;
}

template <int Id>
int get_ctx_params(void* vctx, OSSL_PARAM params[]) {
  return inner_function<int(void*, OSSL_PARAM[])>(*ctx_of(vctx)->algorithm, Id)(inner_of(vctx),
                                                                                params);
}

template <int Id>
int set_ctx_params(void* vctx, const OSSL_PARAM params[]) {
  return inner_function<int(void*, const OSSL_PARAM[])>(*ctx_of(vctx)->algorithm, Id)(
      inner_of(vctx), params);
}

template <int Id>
int cipher_init(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
                size_t ivlen, const OSSL_PARAM params[]) {
  ForwardedCtx* c = ctx_of(vctx);
  const int ok = inner_function<OSSL_FUNC_cipher_encrypt_init_fn>(*c->algorithm, Id)(
      c->inner, key, keylen, iv, ivlen, params);
  if (ok) c->keyed = c->keyed || key != nullptr;
  // The direction even of a refused init: OpenSSL's contexts take it before
  // they check the parameters, and EVP calls only that direction after.
  c->decrypting = Id == OSSL_FUNC_CIPHER_DECRYPT_INIT;
  return ok;
}

template <int Id>
int cipher_update(void* vctx, unsigned char* out, size_t* outl, size_t outsize,
                  const unsigned char* in, size_t inl) {
  ForwardedCtx* c = ctx_of(vctx);
  count_request(*c, inl);
  return inner_function<OSSL_FUNC_cipher_update_fn>(*c->algorithm, Id)(c->inner, out, outl, outsize,
                                                                       in, inl);
}

int cipher_final(void* vctx, unsigned char* out, size_t* outl, size_t outsize) {
  return inner_function<OSSL_FUNC_cipher_final_fn>(
      *ctx_of(vctx)->algorithm, OSSL_FUNC_CIPHER_FINAL)(inner_of(vctx), out, outl, outsize);
}

// --- The AEAD guards (forwarded.hpp).

// OSSL_PARAM_locate_const, without its call and strcmp per parameter where
// the first letters differ: openssl speed's GCM loop sets a parameter per
// message, and OpenSSL's own lookups already take a fifth of its time.
const OSSL_PARAM* find_param(const OSSL_PARAM* params, const char* key) noexcept {
  if (params == nullptr) return nullptr;
  for (const OSSL_PARAM* p = params; p->key != nullptr; ++p)
    if (p->key[0] == key[0] && std::strcmp(p->key, key) == 0) return p;
  return nullptr;
}

#define CRYPTOACCEL_GUARD_FAIL(c, reason, ...)                         \
  ::cryptoaccel::provider::raise_reason((c).algorithm->errors, reason, \
                                        std::source_location::current(), __VA_ARGS__)

bool chacha_has_key(ForwardedCtx& c) {
  if (c.keyed) return true;
  CRYPTOACCEL_GUARD_FAIL(c, kReasonNotInitialised, "chacha20-poly1305: no key was set");
  return false;
}

int chacha_final(void* vctx, unsigned char* out, size_t* outl, size_t outsize) {
  ForwardedCtx& c = *ctx_of(vctx);
  if (!chacha_has_key(c)) return 0;
  // OpenSSL compares the first tag-length bytes: none when no tag was
  // given. The message ends all the same, as in OpenSSL, and fails as a
  // forgery does: with the error queue left empty (docs/provider.md).
  if (c.decrypting && !c.tag_length_given) {
    cipher_final(vctx, out, outl, outsize);
    *outl = 0;
    return 0;
  }
  return cipher_final(vctx, out, outl, outsize);
}

template <int Id>
int chacha_update(void* vctx, unsigned char* out, size_t* outl, size_t outsize,
                  const unsigned char* in, size_t inl) {
  ForwardedCtx& c = *ctx_of(vctx);
  if (!chacha_has_key(c)) return 0;
  if (Id == OSSL_FUNC_CIPHER_CIPHER && in == nullptr && inl == 0) {
    // OpenSSL 3.0 before 3.0.22 makes the final EVP_Cipher(ctx, NULL, NULL,
    // 0) a no-op: no tag made, none checked. It ends the message here.
    if (!c.algorithm->empty_cipher_ends_message)
      return chacha_final(vctx, out, outl, outsize);
    // Later ones end it there themselves, leaving the nonce for another
    // message, and pass a decryption that never got a tag: it fails here.
    const int ended = cipher_update<Id>(vctx, out, outl, outsize, in, inl);
    return c.decrypting && !c.tag_length_given ? 0 : ended;
  }
  return cipher_update<Id>(vctx, out, outl, outsize, in, inl);
}

// The tag's length counts however it was given: by EVP_CIPHER_CTX_set_params
// or with the key (EVP_DecryptInit_ex2's parameters).
void note_chacha_tag(ForwardedCtx& c, const OSSL_PARAM params[]) {
  const OSSL_PARAM* tag = find_param(params, OSSL_CIPHER_PARAM_AEAD_TAG);
  if (tag != nullptr && tag->data_size != 0) c.tag_length_given = true;
}

template <int Id>
int chacha_init(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
                size_t ivlen, const OSSL_PARAM params[]) {
  const int ok = cipher_init<Id>(vctx, key, keylen, iv, ivlen, params);
  if (ok) note_chacha_tag(*ctx_of(vctx), params);
  return ok;
}

int chacha_set_ctx_params(void* vctx, const OSSL_PARAM params[]) {
  const int ok = set_ctx_params<OSSL_FUNC_CIPHER_SET_CTX_PARAMS>(vctx, params);
  if (ok) note_chacha_tag(*ctx_of(vctx), params);
  return ok;
}

// TLS records over GCM (a fixed IV, an invocation field, "tlsaad") need
// an IV of at least the 8-byte explicit part each record carries: OpenSSL
// 3.0 copies that part to the IV's end without checking, and with a
// shorter IV writes over its context's direction and turns a decryption
// into an encryption, which then "succeeds" on any forged record.
constexpr std::size_t kGcmExplicitIv = 8;

// The IV length in effect when OpenSSL reads `params`: an "ivlen" among
// them (OpenSSL applies it first), else the one an init gives
// (`init_ivlen`, 0 for none), else the context's. False when unknown.
bool gcm_ivlen_for(void* vctx, const OSSL_PARAM params[], std::size_t init_ivlen,
                   std::size_t& ivlen) {
  const OSSL_PARAM* given = find_param(params, OSSL_CIPHER_PARAM_IVLEN);
  if (given != nullptr && OSSL_PARAM_get_size_t(given, &ivlen)) return true;
  if (init_ivlen != 0) {
    ivlen = init_ivlen;
    return true;
  }
  OSSL_PARAM query[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &ivlen),
                        OSSL_PARAM_END};
  return get_ctx_params<OSSL_FUNC_CIPHER_GET_CTX_PARAMS>(vctx, query) != 0;
}

// Whether the parameters (of a set_params, or an init's with its IV length)
// keep the IV fit for TLS records once there are any: a fixed IV or
// invocation field no longer than the IV, and, with one of them, "tlsaad"
// or a record set-up already taken, an IV of at least the explicit part.
// A fitting fixed IV or "tlsaad" marks the context as set up for records.
bool gcm_tls_guard(void* vctx, const OSSL_PARAM params[], std::size_t init_ivlen) {
  ForwardedCtx& c = *ctx_of(vctx);
  const OSSL_PARAM* fixed = find_param(params, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED);
  const OSSL_PARAM* inv = find_param(params, OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV);
  const OSSL_PARAM* aad = find_param(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD);
  const bool resized = init_ivlen != 0 || find_param(params, OSSL_CIPHER_PARAM_IVLEN) != nullptr;
  // A record's "tlsaad" on a context set up for records: its IV was
  // checked then and cannot have shrunk since (no query per record).
  if (fixed == nullptr && inv == nullptr && (aad == nullptr || c.gcm_tls) &&
      !(c.gcm_tls && resized))
    return true;
  // A length of -1 (SIZE_MAX) is the whole IV: OpenSSH's set-up.
  const bool fixed_sized = fixed != nullptr && fixed->data_size != static_cast<size_t>(-1);
  std::size_t ivlen = 0;
  if (gcm_ivlen_for(vctx, params, init_ivlen, ivlen) && ivlen >= kGcmExplicitIv &&
      !(fixed_sized && fixed->data_size > ivlen) && !(inv != nullptr && inv->data_size > ivlen)) {
    return true;
  }
  CRYPTOACCEL_GUARD_FAIL(c, static_cast<int>(ErrorCode::invalid_iv_length),
                         "aes-gcm: TLS records need an IV of at least 8 bytes that holds the "
                         "fixed IV and the invocation field; this one has %zu",
                         ivlen);
  return false;
}

// Whether OpenSSL 3.0's GCM refuses `params` at the tag or the IV length,
// which it reads before the record parameters, so that none was taken.
bool gcm_refused_before_records(const ForwardedCtx& c, const OSSL_PARAM params[]) {
  constexpr std::size_t kMaxTag = 16, kMaxIv = 128;
  const OSSL_PARAM* tag = find_param(params, OSSL_CIPHER_PARAM_AEAD_TAG);
  if (tag != nullptr && (tag->data_size == 0 || tag->data_size > kMaxTag ||
                         (tag->data != nullptr && !c.decrypting)))
    return true;
  const OSSL_PARAM* len = find_param(params, OSSL_CIPHER_PARAM_IVLEN);
  std::size_t v = 0;
  return len != nullptr && (!OSSL_PARAM_get_size_t(len, &v) || v == 0 || v > kMaxIv);
}

// A fixed IV or "tlsaad" taken marks the context as set up for records;
// of a refused set, unless OpenSSL stopped before them.
void note_gcm_records(void* vctx, const OSSL_PARAM params[], int ok) {
  ForwardedCtx& c = *ctx_of(vctx);
  if (find_param(params, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED) == nullptr &&
      find_param(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD) == nullptr)
    return;
  if (ok || !gcm_refused_before_records(c, params)) c.gcm_tls = true;
}

// Whether OpenSSL refuses `params` whole, before it reads any of them,
// for naming one of its parameters twice (3.6 on): then none of it can
// reach the record code, and the set goes to OpenSSL as it is.
bool gcm_refuses_whole(void* vctx, const OSSL_PARAM params[]) {
  const ForwardedCtx& c = *ctx_of(vctx);
  if (params == nullptr || !c.algorithm->repeated_param_refused) return false;
  auto* settable = inner_function<OSSL_FUNC_cipher_settable_ctx_params_fn>(
      *c.algorithm, OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS);
  return settable != nullptr &&
         repeated_known_param(params, settable(c.inner, c.algorithm->inner_provctx)) != nullptr;
}

// What OpenSSL takes of a parameter set before it meets the record
// parameter the guard refused: it reads the tag, then the IV length, then
// the record parameters, and stops at the first it refuses. Those two go
// through as there; the refusal is the guard's. An IV length that would
// leave a context set up for records with an IV too short for them stays
// out, whatever OpenSSL would do.
void gcm_before_refused(void* vctx, const OSSL_PARAM params[]) {
  OSSL_PARAM taken[3];
  std::size_t n = 0;
  if (const OSSL_PARAM* tag = find_param(params, OSSL_CIPHER_PARAM_AEAD_TAG)) taken[n++] = *tag;
  if (const OSSL_PARAM* len = find_param(params, OSSL_CIPHER_PARAM_IVLEN)) {
    std::size_t v = 0;
    if (!ctx_of(vctx)->gcm_tls || (OSSL_PARAM_get_size_t(len, &v) && v >= kGcmExplicitIv))
      taken[n++] = *len;
  }
  if (n == 0) return;
  taken[n] = OSSL_PARAM_construct_end();
  set_ctx_params<OSSL_FUNC_CIPHER_SET_CTX_PARAMS>(vctx, taken);
}

int gcm_set_ctx_params(void* vctx, const OSSL_PARAM params[]) {
  if (gcm_refuses_whole(vctx, params)) return set_ctx_params<OSSL_FUNC_CIPHER_SET_CTX_PARAMS>(vctx, params);
  if (!gcm_tls_guard(vctx, params, 0)) {
    gcm_before_refused(vctx, params);
    return 0;
  }
  const int ok = set_ctx_params<OSSL_FUNC_CIPHER_SET_CTX_PARAMS>(vctx, params);
  note_gcm_records(vctx, params, ok);
  return ok;
}

template <int Id>
int gcm_init(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
             size_t ivlen, const OSSL_PARAM params[]) {
  if (gcm_refuses_whole(vctx, params)) return cipher_init<Id>(vctx, key, keylen, iv, ivlen, params);
  if (!gcm_tls_guard(vctx, params, iv != nullptr ? ivlen : 0)) {
    // OpenSSL takes the direction, key and IV before it looks at the
    // parameters, and keeps them when it refuses one: so does this refusal.
    cipher_init<Id>(vctx, key, keylen, iv, ivlen, nullptr);
    gcm_before_refused(vctx, params);
    return 0;
  }
  const int ok = cipher_init<Id>(vctx, key, keylen, iv, ivlen, params);
  note_gcm_records(vctx, params, ok);
  return ok;
}

// "tlsivgen" steps the IV's last 8 bytes: refused on a shorter IV.
int gcm_get_ctx_params(void* vctx, OSSL_PARAM params[]) {
  if (find_param(params, OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN) != nullptr) {
    std::size_t ivlen = 0;
    if (!gcm_ivlen_for(vctx, nullptr, 0, ivlen) || ivlen < kGcmExplicitIv) {
      CRYPTOACCEL_GUARD_FAIL(*ctx_of(vctx), static_cast<int>(ErrorCode::invalid_iv_length),
                             "aes-gcm: an invocation field needs an IV of at least 8 bytes, "
                             "not %zu",
                             ivlen);
      return 0;
    }
  }
  return get_ctx_params<OSSL_FUNC_CIPHER_GET_CTX_PARAMS>(vctx, params);
}

int digest_init(void* vctx, const OSSL_PARAM params[]) {
  return inner_function<OSSL_FUNC_digest_init_fn>(*ctx_of(vctx)->algorithm, OSSL_FUNC_DIGEST_INIT)(
      inner_of(vctx), params);
}

// Digest and MAC updates: bytes here, the request at final.
template <int Id>
int hash_update(void* vctx, const unsigned char* in, size_t inl) {
  ForwardedCtx* c = ctx_of(vctx);
  c->bytes += inl;
  return inner_function<OSSL_FUNC_digest_update_fn>(*c->algorithm, Id)(c->inner, in, inl);
}

template <int Id>
int hash_final(void* vctx, unsigned char* out, size_t* outl, size_t outsz) {
  ForwardedCtx* c = ctx_of(vctx);
  ++c->requests;
  return inner_function<OSSL_FUNC_digest_final_fn>(*c->algorithm, Id)(c->inner, out, outl, outsz);
}

// HMAC's usage is counted under hmac(DIGEST) once the digest parameter
// names one of ours; other digests (SHA-3, ...) are not counted.
void note_hmac_digest(ForwardedCtx& c, const OSSL_PARAM params[]) {
  const OSSL_PARAM* p = find_param(params, OSSL_MAC_PARAM_DIGEST);
  const char* name = nullptr;
  if (p == nullptr || !OSSL_PARAM_get_utf8_string_ptr(p, &name)) return;
  flush_usage(c);
  c.counts = false;
  const Algorithm* digest = find_algorithm(name);
  if (digest == nullptr || digest->kind != AlgorithmKind::digest) return;
  for (const Algorithm& a : algorithms())
    if (a.kind == AlgorithmKind::mac && a.digest == digest->name) {
      c.counted_as = a.id;
      c.counts = true;
    }
}

int mac_init(void* vctx, const unsigned char* key, size_t keylen, const OSSL_PARAM params[]) {
  note_hmac_digest(*ctx_of(vctx), params);
  return inner_function<OSSL_FUNC_mac_init_fn>(*ctx_of(vctx)->algorithm, OSSL_FUNC_MAC_INIT)(
      inner_of(vctx), key, keylen, params);
}

int mac_set_ctx_params(void* vctx, const OSSL_PARAM params[]) {
  note_hmac_digest(*ctx_of(vctx), params);
  return set_ctx_params<OSSL_FUNC_MAC_SET_CTX_PARAMS>(vctx, params);
}

// The forwarded function for (operation, id), or null for one we do not
// know: then the algorithm is not forwarded at all.
void (*forwarded_function(int operation, int id, std::size_t slot, Guard guard))(void) {
  const SlotFunctions& s = kSlotFunctions[slot];
  auto fn = [](auto* f) { return reinterpret_cast<void (*)(void)>(f); };
  if (operation == OSSL_OP_CIPHER && guard == Guard::chacha20_poly1305) {
    switch (id) {
      case OSSL_FUNC_CIPHER_UPDATE:
        return fn(&chacha_update<OSSL_FUNC_CIPHER_UPDATE>);
      case OSSL_FUNC_CIPHER_CIPHER:
        return fn(&chacha_update<OSSL_FUNC_CIPHER_CIPHER>);
      case OSSL_FUNC_CIPHER_FINAL:
        return fn(&chacha_final);
      case OSSL_FUNC_CIPHER_SET_CTX_PARAMS:
        return fn(&chacha_set_ctx_params);
      case OSSL_FUNC_CIPHER_ENCRYPT_INIT:
        return fn(&chacha_init<OSSL_FUNC_CIPHER_ENCRYPT_INIT>);
      case OSSL_FUNC_CIPHER_DECRYPT_INIT:
        return fn(&chacha_init<OSSL_FUNC_CIPHER_DECRYPT_INIT>);
    }
  }
  if (operation == OSSL_OP_CIPHER && guard == Guard::gcm) {
    switch (id) {
      case OSSL_FUNC_CIPHER_SET_CTX_PARAMS:
        return fn(&gcm_set_ctx_params);
      case OSSL_FUNC_CIPHER_GET_CTX_PARAMS:
        return fn(&gcm_get_ctx_params);
      case OSSL_FUNC_CIPHER_ENCRYPT_INIT:
        return fn(&gcm_init<OSSL_FUNC_CIPHER_ENCRYPT_INIT>);
      case OSSL_FUNC_CIPHER_DECRYPT_INIT:
        return fn(&gcm_init<OSSL_FUNC_CIPHER_DECRYPT_INIT>);
    }
  }
  switch (operation) {
    case OSSL_OP_CIPHER:
      switch (id) {
        case OSSL_FUNC_CIPHER_NEWCTX:
          return fn(s.newctx);
        case OSSL_FUNC_CIPHER_ENCRYPT_INIT:
          return fn(&cipher_init<OSSL_FUNC_CIPHER_ENCRYPT_INIT>);
        case OSSL_FUNC_CIPHER_DECRYPT_INIT:
          return fn(&cipher_init<OSSL_FUNC_CIPHER_DECRYPT_INIT>);
        case OSSL_FUNC_CIPHER_UPDATE:
          return fn(&cipher_update<OSSL_FUNC_CIPHER_UPDATE>);
        case OSSL_FUNC_CIPHER_FINAL:
          return fn(&cipher_final);
        case OSSL_FUNC_CIPHER_CIPHER:
          return fn(&cipher_update<OSSL_FUNC_CIPHER_CIPHER>);
        case OSSL_FUNC_CIPHER_FREECTX:
          return fn(&freectx<OSSL_FUNC_CIPHER_FREECTX>);
        case OSSL_FUNC_CIPHER_DUPCTX:
          return fn(&dupctx<OSSL_FUNC_CIPHER_DUPCTX>);
        case OSSL_FUNC_CIPHER_GET_PARAMS:
          return nullptr;  // taken as it is (no context)
        case OSSL_FUNC_CIPHER_GET_CTX_PARAMS:
          return fn(&get_ctx_params<OSSL_FUNC_CIPHER_GET_CTX_PARAMS>);
        case OSSL_FUNC_CIPHER_SET_CTX_PARAMS:
          return fn(&set_ctx_params<OSSL_FUNC_CIPHER_SET_CTX_PARAMS>);
        case OSSL_FUNC_CIPHER_GETTABLE_PARAMS:
          return fn(s.gettable_params);
        case OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS:
          return fn(s.gettable_ctx_params);
        case OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS:
          return fn(s.settable_ctx_params);
      }
      break;
    case OSSL_OP_DIGEST:
      switch (id) {
        case OSSL_FUNC_DIGEST_NEWCTX:
          return fn(s.newctx);
        case OSSL_FUNC_DIGEST_INIT:
          return fn(&digest_init);
        case OSSL_FUNC_DIGEST_UPDATE:
          return fn(&hash_update<OSSL_FUNC_DIGEST_UPDATE>);
        case OSSL_FUNC_DIGEST_FINAL:
          return fn(&hash_final<OSSL_FUNC_DIGEST_FINAL>);
        case OSSL_FUNC_DIGEST_DIGEST:
          return fn(s.digest);
        case OSSL_FUNC_DIGEST_FREECTX:
          return fn(&freectx<OSSL_FUNC_DIGEST_FREECTX>);
        case OSSL_FUNC_DIGEST_DUPCTX:
          return fn(&dupctx<OSSL_FUNC_DIGEST_DUPCTX>);
        case OSSL_FUNC_DIGEST_GET_PARAMS:
          return nullptr;
        case OSSL_FUNC_DIGEST_SET_CTX_PARAMS:
          return fn(&set_ctx_params<OSSL_FUNC_DIGEST_SET_CTX_PARAMS>);
        case OSSL_FUNC_DIGEST_GET_CTX_PARAMS:
          return fn(&get_ctx_params<OSSL_FUNC_DIGEST_GET_CTX_PARAMS>);
        case OSSL_FUNC_DIGEST_GETTABLE_PARAMS:
          return fn(s.gettable_params);
        case OSSL_FUNC_DIGEST_SETTABLE_CTX_PARAMS:
          return fn(s.settable_ctx_params);
        case OSSL_FUNC_DIGEST_GETTABLE_CTX_PARAMS:
          return fn(s.gettable_ctx_params);
      }
      break;
    case OSSL_OP_MAC:
      switch (id) {
        case OSSL_FUNC_MAC_NEWCTX:
          return fn(s.newctx);
        case OSSL_FUNC_MAC_DUPCTX:
          return fn(&dupctx<OSSL_FUNC_MAC_DUPCTX>);
        case OSSL_FUNC_MAC_FREECTX:
          return fn(&freectx<OSSL_FUNC_MAC_FREECTX>);
        case OSSL_FUNC_MAC_INIT:
          return fn(&mac_init);
        case OSSL_FUNC_MAC_UPDATE:
          return fn(&hash_update<OSSL_FUNC_MAC_UPDATE>);
        case OSSL_FUNC_MAC_FINAL:
          return fn(&hash_final<OSSL_FUNC_MAC_FINAL>);
        case OSSL_FUNC_MAC_GET_PARAMS:
          return nullptr;
        case OSSL_FUNC_MAC_GET_CTX_PARAMS:
          return fn(&get_ctx_params<OSSL_FUNC_MAC_GET_CTX_PARAMS>);
        case OSSL_FUNC_MAC_SET_CTX_PARAMS:
          return fn(&mac_set_ctx_params);
        case OSSL_FUNC_MAC_GETTABLE_PARAMS:
          return fn(s.gettable_params);
        case OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS:
          return fn(s.gettable_ctx_params);
        case OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS:
          return fn(s.settable_ctx_params);
      }
      break;
  }
  return nullptr;
}

// Functions without any context, taken from the default provider as they are.
bool taken_as_is(int operation, int id) {
  return (operation == OSSL_OP_CIPHER && id == OSSL_FUNC_CIPHER_GET_PARAMS) ||
         (operation == OSSL_OP_DIGEST && id == OSSL_FUNC_DIGEST_GET_PARAMS) ||
         (operation == OSSL_OP_MAC && id == OSSL_FUNC_MAC_GET_PARAMS);
}

}  // namespace

const ForwardedAlgorithm& forwarded_slot(void* provctx, std::size_t slot) noexcept {
  return *static_cast<ProviderContext*>(provctx)->forwarding().slot(slot);
}

Forwarding::Forwarding(Framework& framework, std::size_t driver_index, OpenSslDefault& defaults,
                       const OpenSslErrorQueue& errors, const std::vector<AlgorithmId>& candidates,
                       bool hmac_candidate)
    : usage_(std::make_unique<DirectUsageSink>(framework, driver_index)),
      digest_instance_(claim_digest_instance()) {
  auto forward = [&](std::size_t slot, int operation, std::string_view name, AlgorithmId counted_as,
                     bool counts, Guard guard) {
    const OSSL_DISPATCH* inner = defaults.implementation(operation, name);
    if (inner == nullptr) return;
    auto a = std::make_unique<ForwardedAlgorithm>();
    a->operation = operation;
    a->inner_provctx = defaults.default_provider_context();
    a->usage = usage_.get();
    a->counted_as = counted_as;
    a->counts = counts;
    a->guard = guard;
    a->errors = &errors;
    a->empty_cipher_ends_message = defaults.contract().chacha_poly_empty_cipher_ends_message;
    a->repeated_param_refused = defaults.contract().repeated_param_refused;
    bool has_newctx = false, has_freectx = false;
    for (const OSSL_DISPATCH* f = inner; f->function_id != 0; ++f) {
      if (f->function_id < 0 || f->function_id > kMaxForwardedFunction) return;
      a->inner[f->function_id] = f->function;
      void (*ours)(void) = taken_as_is(operation, f->function_id)
                               ? f->function
                               : forwarded_function(operation, f->function_id, slot, guard);
      if (ours == nullptr) return;  // a function this build does not know
      a->table.push_back({f->function_id, ours});
      has_newctx = has_newctx || f->function_id == 1;
      has_freectx = has_freectx || f->function_id == ids_of(operation).freectx;
    }
    if (!has_newctx || !has_freectx) return;
    a->table.push_back(kEnd);
    // A digest needs no context of ours, where an instance index is free.
    if (operation == OSSL_OP_DIGEST && digest_instance_) {
      std::vector<OSSL_DISPATCH> wrapped = a->table;
      if (!unwrapped_digest(*a, inner, *digest_instance_, slot)) a->table = std::move(wrapped);
    }
    slots_[slot] = std::move(a);
  };
  for (AlgorithmId id : candidates) {
    const Algorithm& a = algorithm(id);
    const int operation = a.kind == AlgorithmKind::digest ? OSSL_OP_DIGEST : OSSL_OP_CIPHER;
    const Guard guard = a.mode == CipherMode::gcm              ? Guard::gcm
                        : id == AlgorithmId::chacha20_poly1305 ? Guard::chacha20_poly1305
                                                               : Guard::none;
    // An AEAD this build has no guard for is not forwarded.
    if (a.kind == AlgorithmKind::aead && guard == Guard::none) continue;
    forward(index_of(id), operation, a.openssl_name, id, true, guard);
  }
  if (hmac_candidate)
    forward(kAlgorithmCount, OSSL_OP_MAC, "HMAC", AlgorithmId{}, false, Guard::none);
}

Forwarding::~Forwarding() {
  if (digest_instance_) release_digest_instance(*digest_instance_);
}

const OSSL_DISPATCH* Forwarding::table(AlgorithmId id) const noexcept {
  const auto& a = slots_[index_of(id)];
  return a ? a->table.data() : nullptr;
}

const OSSL_DISPATCH* Forwarding::hmac_table() const noexcept {
  const auto& a = slots_[kAlgorithmCount];
  return a ? a->table.data() : nullptr;
}

std::size_t Forwarding::forwarded_algorithms() const noexcept {
  std::size_t n = 0;
  for (std::size_t i = 0; i < kAlgorithmCount; ++i) n += slots_[i] != nullptr;
  return n;
}

}  // namespace cryptoaccel::provider
