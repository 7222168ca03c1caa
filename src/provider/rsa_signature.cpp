// RSA signatures: OpenSSL's default context keeps the parameters (and
// answers for them: AlgorithmIdentifiers, salt lengths); sign and verify
// read them back and, where the library serves them, run on a session of
// the key through the dispatcher. EVP_DigestSign's hashing is ours, in the
// provider's own library context.
//
// From OpenSSL 3.4 on, a context that digest_sign_init or
// digest_verify_init set up takes the *message* in its sign and verify (the
// one-shot EVP_PKEY_sign_message, providers/implementations/signature/
// rsa_sig.c, rsa_sign: EVP_PKEY_OP_SIGNMSG): handed our digest, it hashed it
// again (4.0's and 3.5's evppkey_rsa_common.txt, SHA512-224 and SHA3
// DigestSign, SIGNATURE_MISMATCH). There the message also goes to the
// default's context, and what the library does not serve ends with the
// default's digest_sign_final/digest_verify_final.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rsa.h>

#include <array>
#include <cstring>

#include "errors.hpp"
#include "function_tables.hpp"
#include "rsa_operation.hpp"
#include "rsa_provider.hpp"

namespace cryptoaccel::provider {
namespace {

struct Functions {
  explicit Functions(const OSSL_DISPATCH* t)
      : newctx(inner_function<OSSL_FUNC_signature_newctx_fn>(t, OSSL_FUNC_SIGNATURE_NEWCTX)),
        freectx(inner_function<OSSL_FUNC_signature_freectx_fn>(t, OSSL_FUNC_SIGNATURE_FREECTX)),
        dupctx(inner_function<OSSL_FUNC_signature_dupctx_fn>(t, OSSL_FUNC_SIGNATURE_DUPCTX)),
        sign_init(
            inner_function<OSSL_FUNC_signature_sign_init_fn>(t, OSSL_FUNC_SIGNATURE_SIGN_INIT)),
        sign(inner_function<OSSL_FUNC_signature_sign_fn>(t, OSSL_FUNC_SIGNATURE_SIGN)),
        verify_init(
            inner_function<OSSL_FUNC_signature_verify_init_fn>(t, OSSL_FUNC_SIGNATURE_VERIFY_INIT)),
        verify(inner_function<OSSL_FUNC_signature_verify_fn>(t, OSSL_FUNC_SIGNATURE_VERIFY)),
        verify_recover_init(inner_function<OSSL_FUNC_signature_verify_recover_init_fn>(
            t, OSSL_FUNC_SIGNATURE_VERIFY_RECOVER_INIT)),
        verify_recover(inner_function<OSSL_FUNC_signature_verify_recover_fn>(
            t, OSSL_FUNC_SIGNATURE_VERIFY_RECOVER)),
        digest_sign_init(inner_function<OSSL_FUNC_signature_digest_sign_init_fn>(
            t, OSSL_FUNC_SIGNATURE_DIGEST_SIGN_INIT)),
        digest_verify_init(inner_function<OSSL_FUNC_signature_digest_verify_init_fn>(
            t, OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_INIT)),
        digest_sign_update(inner_function<OSSL_FUNC_signature_digest_sign_update_fn>(
            t, OSSL_FUNC_SIGNATURE_DIGEST_SIGN_UPDATE)),
        digest_sign_final(inner_function<OSSL_FUNC_signature_digest_sign_final_fn>(
            t, OSSL_FUNC_SIGNATURE_DIGEST_SIGN_FINAL)),
        digest_verify_update(inner_function<OSSL_FUNC_signature_digest_verify_update_fn>(
            t, OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_UPDATE)),
        digest_verify_final(inner_function<OSSL_FUNC_signature_digest_verify_final_fn>(
            t, OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_FINAL)),
        get_ctx_params(inner_function<OSSL_FUNC_signature_get_ctx_params_fn>(
            t, OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS)),
        gettable_ctx_params(inner_function<OSSL_FUNC_signature_gettable_ctx_params_fn>(
            t, OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS)),
        set_ctx_params(inner_function<OSSL_FUNC_signature_set_ctx_params_fn>(
            t, OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS)),
        settable_ctx_params(inner_function<OSSL_FUNC_signature_settable_ctx_params_fn>(
            t, OSSL_FUNC_SIGNATURE_SETTABLE_CTX_PARAMS)),
        set_ctx_md_params(inner_function<OSSL_FUNC_signature_set_ctx_md_params_fn>(
            t, OSSL_FUNC_SIGNATURE_SET_CTX_MD_PARAMS)) {}
  OSSL_FUNC_signature_newctx_fn* newctx;
  OSSL_FUNC_signature_freectx_fn* freectx;
  OSSL_FUNC_signature_dupctx_fn* dupctx;
  OSSL_FUNC_signature_sign_init_fn* sign_init;
  OSSL_FUNC_signature_sign_fn* sign;
  OSSL_FUNC_signature_verify_init_fn* verify_init;
  OSSL_FUNC_signature_verify_fn* verify;
  OSSL_FUNC_signature_verify_recover_init_fn* verify_recover_init;
  OSSL_FUNC_signature_verify_recover_fn* verify_recover;
  OSSL_FUNC_signature_digest_sign_init_fn* digest_sign_init;
  OSSL_FUNC_signature_digest_verify_init_fn* digest_verify_init;
  OSSL_FUNC_signature_digest_sign_update_fn* digest_sign_update;
  OSSL_FUNC_signature_digest_sign_final_fn* digest_sign_final;
  OSSL_FUNC_signature_digest_verify_update_fn* digest_verify_update;
  OSSL_FUNC_signature_digest_verify_final_fn* digest_verify_final;
  OSSL_FUNC_signature_get_ctx_params_fn* get_ctx_params;
  OSSL_FUNC_signature_gettable_ctx_params_fn* gettable_ctx_params;
  OSSL_FUNC_signature_set_ctx_params_fn* set_ctx_params;
  OSSL_FUNC_signature_settable_ctx_params_fn* settable_ctx_params;
  OSSL_FUNC_signature_set_ctx_md_params_fn* set_ctx_md_params;
};

// One libcrypto, one default provider: the first instance's table serves all.
const Functions& fns(ProviderContext& pc) {
  static const Functions f(rsa_inner(pc).signature);
  return f;
}

// Owns the default's context: never copied, only made with new.
struct Context : RsaOperation {
  EVP_MD_CTX* md = nullptr;  // EVP_DigestSign/Verify's running hash
  // The default's context was set up by digest_sign/verify_init and takes
  // the message (OpenSSL 3.4 and later): it is fed too, and finishes what
  // the library does not serve.
  bool inner_streams = false;
  bool signing = false;
  ~Context() {
    if (inner != nullptr) fns(*pc).freectx(inner);
    EVP_MD_CTX_free(md);
  }
};

Context* ctx_of(void* c) {
  return static_cast<Context*>(c);
}

// The request the default context's parameters describe, where the library
// serves it.
std::optional<RsaParameters> routed(Context& c) {
  int pad = 0, salt = 0;
  std::array<char, 64> md{}, mgf1{};
  OSSL_PARAM query[] = {
      OSSL_PARAM_int(OSSL_SIGNATURE_PARAM_PAD_MODE, &pad),
      OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, md.data(), md.size()),
      OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_MGF1_DIGEST, mgf1.data(), mgf1.size()),
      OSSL_PARAM_int(OSSL_SIGNATURE_PARAM_PSS_SALTLEN, &salt), OSSL_PARAM_END};
  if (fns(*c.pc).get_ctx_params(c.inner, query) != 1) return std::nullopt;
  const auto digest = digest_named(md.data());
  if (!digest) return std::nullopt;
  if (pad == RSA_PKCS1_PADDING)
    return RsaParameters{.padding = RsaPadding::pkcs1, .digest = *digest};
  if (pad != RSA_PKCS1_PSS_PADDING || *digest == kNoDigest || salt < kSaltMaximum)
    return std::nullopt;
  const auto mask = mgf1[0] == '\0' ? digest : digest_named(mgf1.data());
  if (!mask || *mask == kNoDigest) return std::nullopt;
  return RsaParameters{
      .padding = RsaPadding::pss, .digest = *digest, .mgf1_digest = *mask, .salt_length = salt};
}

void* newctx(void* provctx, const char*) {
  auto* pc = static_cast<ProviderContext*>(provctx);
  return guarded(pc, static_cast<void*>(nullptr), [&]() -> void* {
    // No property query reaches the default context: it holds only OpenSSL's
    // default provider, which "provider=cryptoaccel" would never find.
    void* inner = fns(*pc).newctx(rsa_inner(*pc).provctx, nullptr);
    if (inner == nullptr) return nullptr;
    return new Context{{pc, inner}};
  });
}

void freectx(void* c) {
  delete ctx_of(c);
}

void* dupctx(void* c) {
  Context& from = *ctx_of(c);
  return guarded(from.pc, static_cast<void*>(nullptr), [&]() -> void* {
    void* inner = fns(*from.pc).dupctx(from.inner);
    if (inner == nullptr) return nullptr;
    std::unique_ptr<Context> copy(new Context{{from.pc, inner}});
    copy->key = from.key;
    copy->inner_streams = from.inner_streams;
    copy->signing = from.signing;
    if (from.md != nullptr) {
      copy->md = EVP_MD_CTX_new();
      if (copy->md == nullptr || EVP_MD_CTX_copy_ex(copy->md, from.md) != 1) return nullptr;
    }
    return copy.release();
  });
}

int sign_init(void* c, void* provkey, const OSSL_PARAM params[]) {
  Context& x = *ctx_of(c);
  x.inner_streams = false;
  return init_operation(x, fns(*x.pc).sign_init, provkey, params);
}

int verify_init(void* c, void* provkey, const OSSL_PARAM params[]) {
  Context& x = *ctx_of(c);
  x.inner_streams = false;
  return init_operation(x, fns(*x.pc).verify_init, provkey, params);
}

int sign(void* c, unsigned char* sig, size_t* siglen, size_t sigsize, const unsigned char* tbs,
         size_t tbslen) {
  Context& x = *ctx_of(c);
  if (sig == nullptr || x.key == nullptr)
    return fns(*x.pc).sign(x.inner, sig, siglen, sigsize, tbs, tbslen);
  return guarded(x.pc, 0, [&] {
    const auto parameters = routed(x);
    auto session = parameters ? x.key->lease() : RsaKeyObject::Lease(*x.key, nullptr);
    if (!session || !session->has_private()) {
      if (x.key->refuse_unserved_private("signature")) return 0;
      if (x.inner_streams) return fns(*x.pc).digest_sign_final(x.inner, sig, siglen, sigsize);
      return fns(*x.pc).sign(x.inner, sig, siglen, sigsize, tbs, tbslen);
    }
    if (sigsize < session->size()) {
      CRYPTOACCEL_RAISE(x.pc, kReasonOutputTooSmall, "RSA signature: %zu bytes, the buffer %zu",
                        session->size(), sigsize);
      return 0;
    }
    *siglen = run_private_key_operation(
        *x.pc, *session, *parameters, Bytes(tbs, tbslen), MutableBytes(sig, session->size()),
        [](RsaSession& s, const RsaParameters& p, Bytes input, MutableBytes output) {
          s.sign(p, input, output);
          return output.size();
        });
    return 1;
  });
}

int verify(void* c, const unsigned char* sig, size_t siglen, const unsigned char* tbs,
           size_t tbslen) {
  Context& x = *ctx_of(c);
  if (x.key == nullptr) return fns(*x.pc).verify(x.inner, sig, siglen, tbs, tbslen);
  return guarded(x.pc, 0, [&] {
    const auto parameters = routed(x);
    auto session = parameters ? x.key->lease() : RsaKeyObject::Lease(*x.key, nullptr);
    if (!session) {
      if (x.inner_streams) return fns(*x.pc).digest_verify_final(x.inner, sig, siglen);
      return fns(*x.pc).verify(x.inner, sig, siglen, tbs, tbslen);
    }
    return session->verify(*parameters, Bytes(tbs, tbslen), Bytes(sig, siglen)) ? 1 : 0;
  });
}

int verify_recover_init(void* c, void* provkey, const OSSL_PARAM params[]) {
  Context& x = *ctx_of(c);
  return init_operation(x, fns(*x.pc).verify_recover_init, provkey, params);
}

int verify_recover(void* c, unsigned char* rout, size_t* routlen, size_t routsize,
                   const unsigned char* sig, size_t siglen) {
  Context& x = *ctx_of(c);
  return fns(*x.pc).verify_recover(x.inner, rout, routlen, routsize, sig, siglen);
}

// EVP_DigestSign/Verify: the default context is set up for the digest (it
// checks the name and keeps what its parameters report); the hashing is ours.
int digest_init(Context& x, const char* mdname, void* provkey, const OSSL_PARAM params[],
                bool signing) {
  x.adopt(provkey);
  const ParamsWithoutProperties own(params);
  const int ok =
      signing ? fns(*x.pc).digest_sign_init(x.inner, mdname, inner_key(provkey), own.get())
              : fns(*x.pc).digest_verify_init(x.inner, mdname, inner_key(provkey), own.get());
  if (ok != 1) return ok;
  // The library this provider runs on is the one whose default provider
  // made x.inner.
  x.inner_streams = OpenSSL_version_num() >= 0x30400000L;
  x.signing = signing;
  std::array<char, 64> name{};
  OSSL_PARAM query[] = {
      OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, name.data(), name.size()),
      OSSL_PARAM_END};
  if (fns(*x.pc).get_ctx_params(x.inner, query) != 1 || name[0] == '\0') return 0;
  EVP_MD* md = EVP_MD_fetch(x.pc->openssl_default().libctx(), name.data(), nullptr);
  if (md == nullptr) return 0;
  if (x.md == nullptr) x.md = EVP_MD_CTX_new();
  const int init = x.md != nullptr && EVP_DigestInit_ex2(x.md, md, nullptr) == 1;
  EVP_MD_free(md);
  return init;
}

int digest_sign_init(void* c, const char* mdname, void* provkey, const OSSL_PARAM params[]) {
  return digest_init(*ctx_of(c), mdname, provkey, params, true);
}

int digest_verify_init(void* c, const char* mdname, void* provkey, const OSSL_PARAM params[]) {
  return digest_init(*ctx_of(c), mdname, provkey, params, false);
}

int digest_update(void* c, const unsigned char* data, size_t datalen) {
  Context& x = *ctx_of(c);
  if (x.md == nullptr || EVP_DigestUpdate(x.md, data, datalen) != 1) return 0;
  if (!x.inner_streams) return 1;
  return x.signing ? fns(*x.pc).digest_sign_update(x.inner, data, datalen)
                   : fns(*x.pc).digest_verify_update(x.inner, data, datalen);
}

int digest_sign_final(void* c, unsigned char* sig, size_t* siglen, size_t sigsize) {
  Context& x = *ctx_of(c);
  // Fed, the default's context refuses its one-shot sign (rsa_sign:
  // flag_allow_oneshot): the length comes from its digest_sign_final.
  if (sig == nullptr)
    return x.inner_streams ? fns(*x.pc).digest_sign_final(x.inner, nullptr, siglen, 0)
                           : fns(*x.pc).sign(x.inner, nullptr, siglen, 0, nullptr, 0);
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (x.md == nullptr || EVP_DigestFinal_ex(x.md, digest.data(), &length) != 1) return 0;
  return sign(c, sig, siglen, sigsize, digest.data(), length);
}

int digest_verify_final(void* c, const unsigned char* sig, size_t siglen) {
  Context& x = *ctx_of(c);
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (x.md == nullptr || EVP_DigestFinal_ex(x.md, digest.data(), &length) != 1) return 0;
  return verify(c, sig, siglen, digest.data(), length);
}

// EVP_MD_CTX_get_params/set_params on a DigestSign/Verify context reach the
// running hash (SHA-1's "ssl3-ms", for one), as in OpenSSL's rsa_sig.c;
// where the default's context hashes too (OpenSSL 3.4 on), it gets the same.
int get_ctx_md_params(void* c, OSSL_PARAM params[]) {
  const Context& x = *ctx_of(c);
  return x.md != nullptr && EVP_MD_CTX_get_params(x.md, params) == 1 ? 1 : 0;
}

const OSSL_PARAM* gettable_ctx_md_params(void* c) {
  const Context& x = *ctx_of(c);
  return x.md != nullptr ? EVP_MD_gettable_ctx_params(EVP_MD_CTX_get0_md(x.md)) : nullptr;
}

int set_ctx_md_params(void* c, const OSSL_PARAM params[]) {
  Context& x = *ctx_of(c);
  if (x.md == nullptr || EVP_MD_CTX_set_params(x.md, params) != 1) return 0;
  if (x.inner_streams && fns(*x.pc).set_ctx_md_params != nullptr)
    return fns(*x.pc).set_ctx_md_params(x.inner, params);
  return 1;
}

const OSSL_PARAM* settable_ctx_md_params(void* c) {
  const Context& x = *ctx_of(c);
  return x.md != nullptr ? EVP_MD_settable_ctx_params(EVP_MD_CTX_get0_md(x.md)) : nullptr;
}

using Parameters = ForwardedParameters<Context, Functions, fns>;

}  // namespace

const OSSL_DISPATCH* rsa_signature_functions() noexcept {
  static const OSSL_DISPATCH table[] = {
      entry(OSSL_FUNC_SIGNATURE_NEWCTX, &newctx),
      entry(OSSL_FUNC_SIGNATURE_FREECTX, &freectx),
      entry(OSSL_FUNC_SIGNATURE_DUPCTX, &dupctx),
      entry(OSSL_FUNC_SIGNATURE_SIGN_INIT, &sign_init),
      entry(OSSL_FUNC_SIGNATURE_SIGN, &sign),
      entry(OSSL_FUNC_SIGNATURE_VERIFY_INIT, &verify_init),
      entry(OSSL_FUNC_SIGNATURE_VERIFY, &verify),
      entry(OSSL_FUNC_SIGNATURE_VERIFY_RECOVER_INIT, &verify_recover_init),
      entry(OSSL_FUNC_SIGNATURE_VERIFY_RECOVER, &verify_recover),
      entry(OSSL_FUNC_SIGNATURE_DIGEST_SIGN_INIT, &digest_sign_init),
      entry(OSSL_FUNC_SIGNATURE_DIGEST_SIGN_UPDATE, &digest_update),
      entry(OSSL_FUNC_SIGNATURE_DIGEST_SIGN_FINAL, &digest_sign_final),
      entry(OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_INIT, &digest_verify_init),
      entry(OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_UPDATE, &digest_update),
      entry(OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_FINAL, &digest_verify_final),
      entry(OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS, &Parameters::get),
      entry(OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS, &Parameters::gettable),
      entry(OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS, &Parameters::set),
      entry(OSSL_FUNC_SIGNATURE_SETTABLE_CTX_PARAMS, &Parameters::settable),
      entry(OSSL_FUNC_SIGNATURE_GET_CTX_MD_PARAMS, &get_ctx_md_params),
      entry(OSSL_FUNC_SIGNATURE_GETTABLE_CTX_MD_PARAMS, &gettable_ctx_md_params),
      entry(OSSL_FUNC_SIGNATURE_SET_CTX_MD_PARAMS, &set_ctx_md_params),
      entry(OSSL_FUNC_SIGNATURE_SETTABLE_CTX_MD_PARAMS, &settable_ctx_md_params),
      kEnd};
  return table;
}

}  // namespace cryptoaccel::provider
