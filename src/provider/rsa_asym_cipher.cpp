// RSA encryption and decryption: as the signatures, OpenSSL's default
// context keeps the parameters; PKCS#1 v1.5 and OAEP with the table's
// digests run through the dispatcher, the rest (no padding, TLS's
// premaster padding, implicit rejection where OpenSSL has it) on OpenSSL's.
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/rsa.h>

#include <array>

#include "errors.hpp"
#include "function_tables.hpp"
#include "rsa_operation.hpp"
#include "rsa_provider.hpp"

namespace cryptoaccel::provider {
namespace {

// OpenSSL 3.2's name; older versions do not answer for it.
constexpr const char* kImplicitRejection = "implicit-rejection";

struct Functions {
  explicit Functions(const OSSL_DISPATCH* t)
      : newctx(inner_function<OSSL_FUNC_asym_cipher_newctx_fn>(t, OSSL_FUNC_ASYM_CIPHER_NEWCTX)),
        freectx(inner_function<OSSL_FUNC_asym_cipher_freectx_fn>(t, OSSL_FUNC_ASYM_CIPHER_FREECTX)),
        dupctx(inner_function<OSSL_FUNC_asym_cipher_dupctx_fn>(t, OSSL_FUNC_ASYM_CIPHER_DUPCTX)),
        encrypt_init(inner_function<OSSL_FUNC_asym_cipher_encrypt_init_fn>(
            t, OSSL_FUNC_ASYM_CIPHER_ENCRYPT_INIT)),
        encrypt(inner_function<OSSL_FUNC_asym_cipher_encrypt_fn>(t, OSSL_FUNC_ASYM_CIPHER_ENCRYPT)),
        decrypt_init(inner_function<OSSL_FUNC_asym_cipher_decrypt_init_fn>(
            t, OSSL_FUNC_ASYM_CIPHER_DECRYPT_INIT)),
        decrypt(inner_function<OSSL_FUNC_asym_cipher_decrypt_fn>(t, OSSL_FUNC_ASYM_CIPHER_DECRYPT)),
        get_ctx_params(inner_function<OSSL_FUNC_asym_cipher_get_ctx_params_fn>(
            t, OSSL_FUNC_ASYM_CIPHER_GET_CTX_PARAMS)),
        gettable_ctx_params(inner_function<OSSL_FUNC_asym_cipher_gettable_ctx_params_fn>(
            t, OSSL_FUNC_ASYM_CIPHER_GETTABLE_CTX_PARAMS)),
        set_ctx_params(inner_function<OSSL_FUNC_asym_cipher_set_ctx_params_fn>(
            t, OSSL_FUNC_ASYM_CIPHER_SET_CTX_PARAMS)),
        settable_ctx_params(inner_function<OSSL_FUNC_asym_cipher_settable_ctx_params_fn>(
            t, OSSL_FUNC_ASYM_CIPHER_SETTABLE_CTX_PARAMS)) {}
  OSSL_FUNC_asym_cipher_newctx_fn* newctx;
  OSSL_FUNC_asym_cipher_freectx_fn* freectx;
  OSSL_FUNC_asym_cipher_dupctx_fn* dupctx;
  OSSL_FUNC_asym_cipher_encrypt_init_fn* encrypt_init;
  OSSL_FUNC_asym_cipher_encrypt_fn* encrypt;
  OSSL_FUNC_asym_cipher_decrypt_init_fn* decrypt_init;
  OSSL_FUNC_asym_cipher_decrypt_fn* decrypt;
  OSSL_FUNC_asym_cipher_get_ctx_params_fn* get_ctx_params;
  OSSL_FUNC_asym_cipher_gettable_ctx_params_fn* gettable_ctx_params;
  OSSL_FUNC_asym_cipher_set_ctx_params_fn* set_ctx_params;
  OSSL_FUNC_asym_cipher_settable_ctx_params_fn* settable_ctx_params;
};

const Functions& fns(ProviderContext& pc) {
  static const Functions f(rsa_inner(pc).asym_cipher);
  return f;
}

// Owns the default's context: never copied, only made with new.
struct Context : RsaOperation {
  ~Context() {
    if (inner != nullptr) fns(*pc).freectx(inner);
  }
};

Context* ctx_of(void* c) {
  return static_cast<Context*>(c);
}

// The request the default context's parameters describe (its label
// pointing into that context), where the library serves it.
std::optional<RsaParameters> routed(Context& c, bool decrypting) {
  int pad = 0, implicit_rejection = 0;
  std::array<char, 64> md{}, mgf1{};
  void* label = nullptr;
  OSSL_PARAM query[] = {
      OSSL_PARAM_int(OSSL_ASYM_CIPHER_PARAM_PAD_MODE, &pad),
      OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST, md.data(), md.size()),
      OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST, mgf1.data(), mgf1.size()),
      OSSL_PARAM_octet_ptr(OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL, &label, 0),
      OSSL_PARAM_int(kImplicitRejection, &implicit_rejection),
      OSSL_PARAM_END};
  if (fns(*c.pc).get_ctx_params(c.inner, query) != 1) return std::nullopt;
  if (pad == RSA_PKCS1_PADDING) {
    // OpenSSL 3.2's implicit rejection answers a bad ciphertext with a
    // message derived from it: its own implementation keeps that promise.
    if (decrypting && OSSL_PARAM_modified(&query[4]) && implicit_rejection != 0)
      return std::nullopt;
    return RsaParameters{.padding = RsaPadding::pkcs1};
  }
  if (pad != RSA_PKCS1_OAEP_PADDING) return std::nullopt;
  // OAEP's digest is SHA-1 unless set (RFC 8017's default, and OpenSSL's).
  const auto digest = md[0] == '\0' ? std::optional(AlgorithmId::sha1) : digest_named(md.data());
  const auto mask = mgf1[0] == '\0' ? digest : digest_named(mgf1.data());
  if (!digest || !mask || *digest == kNoDigest || *mask == kNoDigest) return std::nullopt;
  const std::size_t label_size = query[3].return_size;
  return RsaParameters{
      .padding = RsaPadding::oaep,
      .digest = *digest,
      .mgf1_digest = *mask,
      .label = Bytes(static_cast<const std::uint8_t*>(label), label == nullptr ? 0 : label_size)};
}

void* newctx(void* provctx) {
  auto* pc = static_cast<ProviderContext*>(provctx);
  return guarded(pc, static_cast<void*>(nullptr), [&]() -> void* {
    void* inner = fns(*pc).newctx(rsa_inner(*pc).provctx);
    return inner == nullptr ? nullptr : new Context{{pc, inner}};
  });
}

void freectx(void* c) {
  delete ctx_of(c);
}

void* dupctx(void* c) {
  Context& from = *ctx_of(c);
  return guarded(from.pc, static_cast<void*>(nullptr), [&]() -> void* {
    void* inner = fns(*from.pc).dupctx(from.inner);
    return inner == nullptr ? nullptr : new Context{{from.pc, inner, from.key}};
  });
}

int encrypt_init(void* c, void* provkey, const OSSL_PARAM params[]) {
  Context& x = *ctx_of(c);
  return init_operation(x, fns(*x.pc).encrypt_init, provkey, params);
}

int decrypt_init(void* c, void* provkey, const OSSL_PARAM params[]) {
  Context& x = *ctx_of(c);
  return init_operation(x, fns(*x.pc).decrypt_init, provkey, params);
}

int encrypt(void* c, unsigned char* out, size_t* outlen, size_t outsize, const unsigned char* in,
            size_t inlen) {
  Context& x = *ctx_of(c);
  if (out == nullptr || x.key == nullptr)
    return fns(*x.pc).encrypt(x.inner, out, outlen, outsize, in, inlen);
  return guarded(x.pc, 0, [&] {
    const auto parameters = routed(x, false);
    auto session = parameters ? x.key->lease() : RsaKeyObject::Lease(*x.key, nullptr);
    if (!session) return fns(*x.pc).encrypt(x.inner, out, outlen, outsize, in, inlen);
    if (outsize < session->size()) {
      CRYPTOACCEL_RAISE(x.pc, kReasonOutputTooSmall, "RSA ciphertext: %zu bytes, the buffer %zu",
                        session->size(), outsize);
      return 0;
    }
    session->encrypt(*parameters, Bytes(in, inlen), MutableBytes(out, session->size()));
    *outlen = session->size();
    return 1;
  });
}

int decrypt(void* c, unsigned char* out, size_t* outlen, size_t outsize, const unsigned char* in,
            size_t inlen) {
  Context& x = *ctx_of(c);
  if (out == nullptr || x.key == nullptr)
    return fns(*x.pc).decrypt(x.inner, out, outlen, outsize, in, inlen);
  return guarded(x.pc, 0, [&] {
    const auto parameters = routed(x, true);
    auto session = parameters ? x.key->lease() : RsaKeyObject::Lease(*x.key, nullptr);
    if (!session || !session->has_private()) {
      if (x.key->refuse_unserved_private("decryption")) return 0;
      return fns(*x.pc).decrypt(x.inner, out, outlen, outsize, in, inlen);
    }
    // OpenSSL's own wants room for a whole modulus, whatever the plaintext.
    if (outsize < session->size()) {
      CRYPTOACCEL_RAISE(x.pc, kReasonOutputTooSmall,
                        "RSA plaintext: room for %zu bytes needed, the buffer %zu", session->size(),
                        outsize);
      return 0;
    }
    // try_decrypt: a bad padding is an answer, not an exception (whose
    // unwinding would make bad ciphertexts the slower ones); it is raised
    // here as OpenSSL's default provider raises it, one short error entry.
    const std::size_t length = run_private_key_operation(
        *x.pc, *session, *parameters, Bytes(in, inlen), MutableBytes(out, session->size()),
        [](RsaSession& s, const RsaParameters& p, Bytes input, MutableBytes output) {
          return s.try_decrypt(p, input, output).value_or(kNoResult);
        });
    if (length == kNoResult) {
      CRYPTOACCEL_RAISE(x.pc, static_cast<int>(ErrorCode::decryption_failed),
                        "cryptoaccel: decryption failed");
      return 0;
    }
    *outlen = length;
    return 1;
  });
}

using Parameters = ForwardedParameters<Context, Functions, fns>;

}  // namespace

const OSSL_DISPATCH* rsa_asym_cipher_functions() noexcept {
  static const OSSL_DISPATCH table[] = {
      entry(OSSL_FUNC_ASYM_CIPHER_NEWCTX, &newctx),
      entry(OSSL_FUNC_ASYM_CIPHER_FREECTX, &freectx),
      entry(OSSL_FUNC_ASYM_CIPHER_DUPCTX, &dupctx),
      entry(OSSL_FUNC_ASYM_CIPHER_ENCRYPT_INIT, &encrypt_init),
      entry(OSSL_FUNC_ASYM_CIPHER_ENCRYPT, &encrypt),
      entry(OSSL_FUNC_ASYM_CIPHER_DECRYPT_INIT, &decrypt_init),
      entry(OSSL_FUNC_ASYM_CIPHER_DECRYPT, &decrypt),
      entry(OSSL_FUNC_ASYM_CIPHER_GET_CTX_PARAMS, &Parameters::get),
      entry(OSSL_FUNC_ASYM_CIPHER_GETTABLE_CTX_PARAMS, &Parameters::gettable),
      entry(OSSL_FUNC_ASYM_CIPHER_SET_CTX_PARAMS, &Parameters::set),
      entry(OSSL_FUNC_ASYM_CIPHER_SETTABLE_CTX_PARAMS, &Parameters::settable),
      kEnd};
  return table;
}

}  // namespace cryptoaccel::provider
