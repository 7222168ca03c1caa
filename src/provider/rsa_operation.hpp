// What RSA's signature and cipher contexts share: parameters handed on to
// the default provider's context without the property queries it could
// not satisfy.
#pragma once

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstring>
#include <vector>

#include "rsa_provider.hpp"

namespace cryptoaccel::provider {

// `params` less "properties" and "mgf1-properties": the default context
// lives in a library context holding only OpenSSL's default provider, where
// a query such as "provider=cryptoaccel" finds no digest. Its digests are
// the default provider's whatever the caller asked.
class ParamsWithoutProperties {
 public:
  explicit ParamsWithoutProperties(const OSSL_PARAM* params) {
    if (params == nullptr) return;
    for (const OSSL_PARAM* p = params; p->key != nullptr; ++p)
      if (std::strcmp(p->key, OSSL_SIGNATURE_PARAM_PROPERTIES) != 0 &&
          std::strcmp(p->key, OSSL_SIGNATURE_PARAM_MGF1_PROPERTIES) != 0 &&
          std::strcmp(p->key, OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST_PROPS) != 0)
        kept_.push_back(*p);
    kept_.push_back(OSSL_PARAM_construct_end());
  }
  // Null when there were none, as OpenSSL passes them.
  const OSSL_PARAM* get() const noexcept { return kept_.empty() ? nullptr : kept_.data(); }

 private:
  std::vector<OSSL_PARAM> kept_;
};

// What a signature or cipher context of ours holds besides its own: the
// default's context and the key.
struct RsaOperation {
  ProviderContext* pc;
  void* inner;
  RsaKeyObject* key = nullptr;
  // An init without a key (OpenSSL re-initialising a context) keeps the
  // one set before, in ours as in the default's.
  void adopt(void* provkey) noexcept {
    if (provkey != nullptr) key = static_cast<RsaKeyObject*>(provkey);
  }
};

// A private-key operation of the library's: `op` runs `session` over `in`
// into `out` and returns the length it wrote. Inside an OpenSSL ASYNC job
// (and with `async = yes`) it runs on one of the provider's workers with the
// job paused, on its own copies of `in` and of the parameters' label and
// into its own (wiped) room, the result copied to `out` once the job is
// resumed: an application that abandons the job and frees its buffers and
// its context meanwhile leaves the worker nothing freed to touch. The
// session is the job's lease, returned only when the job finishes, after
// the worker. Otherwise `op` runs here, on the caller's buffers.
// An `op` may return kNoResult for an answer that is no result (a
// decryption whose padding is wrong), returned as it is, nothing copied.
using PrivateKeyOp = std::size_t (*)(RsaSession& session, const RsaParameters& parameters, Bytes in,
                                     MutableBytes out);
inline constexpr std::size_t kNoResult = static_cast<std::size_t>(-1);
std::size_t run_private_key_operation(ProviderContext& pc, RsaSession& session,
                                      const RsaParameters& parameters, Bytes in, MutableBytes out,
                                      PrivateKeyOp op);

inline void* inner_key(void* provkey) noexcept {
  return provkey != nullptr ? static_cast<RsaKeyObject*>(provkey)->inner : nullptr;
}

// An init of ours (sign, verify, verify-recover, encrypt, decrypt): the key
// adopted, then the default's context initialised with the default's half of
// the key and the parameters it can take.
template <typename InnerInit>
int init_operation(RsaOperation& x, InnerInit* inner_init, void* provkey,
                   const OSSL_PARAM params[]) {
  x.adopt(provkey);
  const ParamsWithoutProperties own(params);
  return inner_init(x.inner, inner_key(provkey), own.get());
}

// The four parameter entries, handed to the default's context. `Context`
// derives from RsaOperation; `fns` gives the default's table of functions.
template <typename Context, typename Functions, const Functions& (*fns)(ProviderContext&)>
struct ForwardedParameters {
  static int get(void* c, OSSL_PARAM params[]) {
    Context& x = *static_cast<Context*>(c);
    return fns(*x.pc).get_ctx_params(x.inner, params);
  }
  static const OSSL_PARAM* gettable(void* c, void* provctx) {
    auto* pc = static_cast<ProviderContext*>(provctx);
    return fns(*pc).gettable_ctx_params(c != nullptr ? static_cast<Context*>(c)->inner : nullptr,
                                        rsa_inner(*pc).provctx);
  }
  static int set(void* c, const OSSL_PARAM params[]) {
    Context& x = *static_cast<Context*>(c);
    const ParamsWithoutProperties own(params);
    return fns(*x.pc).set_ctx_params(x.inner, own.get());
  }
  static const OSSL_PARAM* settable(void* c, void* provctx) {
    auto* pc = static_cast<ProviderContext*>(provctx);
    return fns(*pc).settable_ctx_params(c != nullptr ? static_cast<Context*>(c)->inner : nullptr,
                                        rsa_inner(*pc).provctx);
  }
};

}  // namespace cryptoaccel::provider
