// What the cipher contexts share: a wiped copy of the key, the parameters
// every cipher answers, and the per-algorithm constant parameters OpenSSL
// caches at fetch time.
#pragma once

#include <openssl/core.h>
#include <openssl/core_dispatch.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

#include "cryptoaccel/cryptoaccel.hpp"
#include "errors.hpp"
#include "function_tables.hpp"
#include "provider_context.hpp"

namespace cryptoaccel::provider {

// EVP_CIPH_*_MODE values and the constant parameters of `a`.
unsigned openssl_mode(const Algorithm& a) noexcept;
std::size_t openssl_block_size(const Algorithm& a) noexcept;
int cipher_get_params(const Algorithm& a, OSSL_PARAM params[]) noexcept;
const OSSL_PARAM* cipher_gettable_params(void* provctx) noexcept;

// Reading parameters: false with an error raised when `p` has the wrong type.
bool read_size(const ProviderContext* pc, const OSSL_PARAM* p, std::size_t& out) noexcept;
// Answers an IV parameter ("iv", "updated-iv") as OpenSSL asks for it: an
// octet string copied out, or (EVP_CIPHER_CTX_original_iv(),
// EVP_CIPHER_CTX_iv(), which CMS and PKCS#7 use for the AlgorithmIdentifier)
// an octet pointer to `bytes`, which must live as long as the context.
int set_iv_param(OSSL_PARAM* p, const std::uint8_t* bytes, std::size_t size) noexcept;
bool read_uint(const ProviderContext* pc, const OSSL_PARAM* p, unsigned& out) noexcept;

// The first parameter of `known` that `params` names twice, or null.
const char* repeated_known_param(const OSSL_PARAM params[], const OSSL_PARAM known[]) noexcept;

// Whether to refuse `params` for naming one of the parameters in `known`
// twice, as the running OpenSSL does since 3.6 (its generated decoders;
// OpenSslDefault::Contract::repeated_param_refused): raises the error then.
bool refuses_repeated_param(ProviderContext* pc, const OSSL_PARAM params[],
                            const OSSL_PARAM known[]) noexcept;

// Throws InvalidKeyLength / InvalidIvLength with the lengths the algorithm takes.
void check_key_length(const Algorithm& a, std::size_t keylen);

// The OSSL_FUNC_CIPHER entry points that every cipher context type shares:
// each turns OpenSSL's void* back into Ctx and runs the member function
// through guarded(), so no exception reaches OpenSSL.
template <typename Ctx>
struct CipherEntries {
  static Ctx* of(void* vctx) { return static_cast<Ctx*>(vctx); }
  static void freectx(void* vctx) { std::unique_ptr<Ctx> owned(of(vctx)); }
  static void* dupctx(void* vctx) {
    Ctx* ctx = of(vctx);
    return guarded(ctx->pc(), static_cast<void*>(nullptr),
                   [&]() -> void* { return std::make_unique<Ctx>(*ctx).release(); });
  }
  static int einit(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
                   size_t ivlen, const OSSL_PARAM params[]) {
    Ctx* ctx = of(vctx);
    return guarded(ctx->pc(), 0, [&] { return ctx->init(true, key, keylen, iv, ivlen, params); });
  }
  static int dinit(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
                   size_t ivlen, const OSSL_PARAM params[]) {
    Ctx* ctx = of(vctx);
    return guarded(ctx->pc(), 0, [&] { return ctx->init(false, key, keylen, iv, ivlen, params); });
  }
  static int update(void* vctx, unsigned char* out, size_t* outl, size_t outsz,
                    const unsigned char* in, size_t inl) {
    Ctx* ctx = of(vctx);
    return guarded(ctx->pc(), 0, [&] { return ctx->update(out, outl, outsz, in, inl); });
  }
  // EVP_Cipher() turns 1 into the byte count and 0 into -1: callers such as
  // OpenSSH read only a negative result as a failed tag check.
  static int cipher(void* vctx, unsigned char* out, size_t* outl, size_t outsz,
                    const unsigned char* in, size_t inl) {
    Ctx* ctx = of(vctx);
    return guarded(ctx->pc(), 0, [&] { return ctx->cipher(out, outl, outsz, in, inl); });
  }
  static int final(void* vctx, unsigned char* out, size_t* outl, size_t outsz) {
    Ctx* ctx = of(vctx);
    return guarded(ctx->pc(), 0, [&] { return ctx->final(out, outl, outsz); });
  }
  static int get_ctx_params(void* vctx, OSSL_PARAM params[]) {
    Ctx* ctx = of(vctx);
    return guarded(ctx->pc(), 0, [&] { return ctx->get_params(params); });
  }
  static int set_ctx_params(void* vctx, const OSSL_PARAM params[]) {
    Ctx* ctx = of(vctx);
    return guarded(ctx->pc(), 0, [&] { return ctx->set_params(params); });
  }
};

// The dispatch table of algorithm `Id` served by context type Ctx: the
// shared entry points above, a newctx for Ctx, the algorithm's constant
// parameters, and Ctx's own gettable/settable parameter lists.
template <typename Ctx, AlgorithmId Id, auto GettableCtxParams, auto SettableCtxParams>
struct CipherTable {
  using Entries = CipherEntries<Ctx>;
  static void* newctx(void* provctx) {
    auto* pc = static_cast<ProviderContext*>(provctx);
    return guarded(pc, static_cast<void*>(nullptr),
                   [&]() -> void* { return std::make_unique<Ctx>(pc, algorithm(Id)).release(); });
  }
  static int get_params(OSSL_PARAM params[]) { return cipher_get_params(algorithm(Id), params); }
  static inline const OSSL_DISPATCH functions[] = {
      entry(OSSL_FUNC_CIPHER_NEWCTX, &newctx),
      entry(OSSL_FUNC_CIPHER_FREECTX, &Entries::freectx),
      entry(OSSL_FUNC_CIPHER_DUPCTX, &Entries::dupctx),
      entry(OSSL_FUNC_CIPHER_ENCRYPT_INIT, &Entries::einit),
      entry(OSSL_FUNC_CIPHER_DECRYPT_INIT, &Entries::dinit),
      entry(OSSL_FUNC_CIPHER_UPDATE, &Entries::update),
      entry(OSSL_FUNC_CIPHER_FINAL, &Entries::final),
      entry(OSSL_FUNC_CIPHER_CIPHER, &Entries::cipher),
      entry(OSSL_FUNC_CIPHER_GET_PARAMS, &get_params),
      entry(OSSL_FUNC_CIPHER_GET_CTX_PARAMS, &Entries::get_ctx_params),
      entry(OSSL_FUNC_CIPHER_SET_CTX_PARAMS, &Entries::set_ctx_params),
      entry(OSSL_FUNC_CIPHER_GETTABLE_PARAMS, &cipher_gettable_params),
      entry(OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, GettableCtxParams),
      entry(OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, SettableCtxParams),
      kEnd};
};

}  // namespace cryptoaccel::provider
