// RsaKey: reading keys with OpenSSL's decoders, and the blob drivers get.
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

#include "cryptoaccel/rsa.hpp"
#include "openssl_context.hpp"

namespace cryptoaccel {
namespace {

template <auto Free>
struct Deleter {
  template <typename T>
  void operator()(T* p) const noexcept {
    Free(p);
  }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, Deleter<EVP_PKEY_CTX_free>>;
using BnPtr = std::unique_ptr<BIGNUM, Deleter<BN_clear_free>>;
using BnCtxPtr = std::unique_ptr<BN_CTX, Deleter<BN_CTX_free>>;
using DecoderPtr = std::unique_ptr<OSSL_DECODER_CTX, Deleter<OSSL_DECODER_CTX_free>>;
using ParamBldPtr = std::unique_ptr<OSSL_PARAM_BLD, Deleter<OSSL_PARAM_BLD_free>>;
using ParamsPtr = std::unique_ptr<OSSL_PARAM, Deleter<OSSL_PARAM_free>>;
using Pkcs8Ptr = std::unique_ptr<PKCS8_PRIV_KEY_INFO, Deleter<PKCS8_PRIV_KEY_INFO_free>>;

// The largest modulus read at all; the rows are smaller still.
constexpr int kMaxBits = 16384;

std::string openssl_reason() {
  const unsigned long code = ERR_peek_last_error();
  ERR_clear_error();
  if (code == 0) return "no detail from OpenSSL";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

BnPtr to_bn(Bytes bytes) {
  BnPtr bn(BN_bin2bn(bytes.data(), static_cast<int>(bytes.size()), nullptr));
  if (!bn) throw DriverFailure("RSA key: out of memory");
  return bn;
}

BnPtr get_bn(const EVP_PKEY* pkey, const char* name) {
  BIGNUM* bn = nullptr;
  if (EVP_PKEY_get_bn_param(pkey, name, &bn) != 1) {
    ERR_clear_error();
    return nullptr;
  }
  return BnPtr(bn);
}

// p and q from n, e and d (NIST SP 800-56B rev. 2, appendix C.2): d*e - 1
// is a multiple of lcm(p-1, q-1), so for most g a square root of 1 modulo
// n other than +-1 turns up among g^(k/2^i), and gcd(root - 1, n) is a factor.
std::pair<BnPtr, BnPtr> recover_factors(const BIGNUM* n, const BIGNUM* e, const BIGNUM* d) {
  BnCtxPtr ctx(BN_CTX_secure_new());
  BnPtr k(BN_secure_new()), r(BN_secure_new()), y(BN_secure_new()), x(BN_secure_new()),
      n_minus_1(BN_dup(n)), g(BN_new()), p(BN_secure_new()), q(BN_secure_new()),
      rem(BN_secure_new());
  if (!ctx || !k || !r || !y || !x || !n_minus_1 || !g || !p || !q || !rem)
    throw DriverFailure("RSA key: out of memory");
  if (BN_mul(k.get(), d, e, ctx.get()) != 1 || BN_sub_word(k.get(), 1) != 1 ||
      BN_sub_word(n_minus_1.get(), 1) != 1)
    throw DriverFailure("RSA key: " + openssl_reason());
  if (BN_is_zero(k.get()) || BN_is_odd(k.get()))
    throw InvalidKey("RSA key: d and e do not belong to one key (d*e - 1 is odd)");
  // (2^e)^d must be 2 for a real key: two exponentiations tell a mismatched
  // d from a real one before the search below spends a hundred.
  BN_set_word(g.get(), 2);
  if (BN_mod_exp(y.get(), g.get(), e, n, ctx.get()) != 1 ||
      BN_mod_exp(x.get(), y.get(), d, n, ctx.get()) != 1)
    throw DriverFailure("RSA key: " + openssl_reason());
  if (!BN_is_word(x.get(), 2)) throw InvalidKey("RSA key: n, e and d do not belong to one key");
  int t = 0;
  BN_copy(r.get(), k.get());
  while (!BN_is_odd(r.get())) {
    BN_rshift1(r.get(), r.get());
    ++t;
  }
  // Each base finds a factor with probability at least one half.
  for (unsigned long base = 2; base < 66; ++base) {
    BN_set_word(g.get(), base);
    if (BN_mod_exp(y.get(), g.get(), r.get(), n, ctx.get()) != 1)
      throw DriverFailure("RSA key: " + openssl_reason());
    if (BN_is_one(y.get()) || BN_cmp(y.get(), n_minus_1.get()) == 0) continue;
    for (int i = 0; i < t; ++i) {
      if (BN_mod_sqr(x.get(), y.get(), n, ctx.get()) != 1)
        throw DriverFailure("RSA key: " + openssl_reason());
      if (BN_is_one(x.get())) {
        BN_sub_word(y.get(), 1);
        BN_gcd(p.get(), y.get(), n, ctx.get());
        BN_div(q.get(), rem.get(), n, p.get(), ctx.get());
        if (!BN_is_zero(rem.get()) || BN_is_one(p.get()))
          throw InvalidKey("RSA key: n, e and d do not belong to one key");
        if (BN_cmp(p.get(), q.get()) < 0) std::swap(p, q);
        return {std::move(p), std::move(q)};
      }
      if (BN_cmp(x.get(), n_minus_1.get()) == 0) break;
      std::swap(x, y);
    }
  }
  throw InvalidKey("RSA key: n, e and d do not belong to one key (no factor found)");
}

PkeyPtr from_params(const RsaKey::Components& c, bool with_private) {
  BnPtr n = to_bn(c.n), e = to_bn(c.e);
  BnPtr d, p, q, dp, dq, qinv;
  BnCtxPtr ctx(BN_CTX_secure_new());
  if (!ctx) throw DriverFailure("RSA key: out of memory");
  if (with_private) {
    d = to_bn(c.d);
    if (c.p.empty() || c.q.empty()) {
      std::tie(p, q) = recover_factors(n.get(), e.get(), d.get());
    } else {
      p = to_bn(c.p);
      q = to_bn(c.q);
    }
    if (!c.dp.empty() && !c.dq.empty() && !c.qinv.empty()) {
      dp = to_bn(c.dp);
      dq = to_bn(c.dq);
      qinv = to_bn(c.qinv);
    } else {
      BnPtr p1(BN_dup(p.get())), q1(BN_dup(q.get()));
      dp.reset(BN_secure_new());
      dq.reset(BN_secure_new());
      if (!p1 || !q1 || !dp || !dq || BN_sub_word(p1.get(), 1) != 1 ||
          BN_sub_word(q1.get(), 1) != 1 || BN_mod(dp.get(), d.get(), p1.get(), ctx.get()) != 1 ||
          BN_mod(dq.get(), d.get(), q1.get(), ctx.get()) != 1)
        throw DriverFailure("RSA key: " + openssl_reason());
      qinv.reset(BN_mod_inverse(nullptr, q.get(), p.get(), ctx.get()));
      if (!qinv) throw InvalidKey("RSA key: q has no inverse modulo p");
    }
  }
  ParamBldPtr build(OSSL_PARAM_BLD_new());
  if (!build || OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_N, n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_E, e.get()) != 1)
    throw DriverFailure("RSA key: " + openssl_reason());
  if (with_private &&
      (OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_D, d.get()) != 1 ||
       OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_FACTOR1, p.get()) != 1 ||
       OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_FACTOR2, q.get()) != 1 ||
       OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_EXPONENT1, dp.get()) != 1 ||
       OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_EXPONENT2, dq.get()) != 1 ||
       OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_COEFFICIENT1, qinv.get()) != 1))
    throw DriverFailure("RSA key: " + openssl_reason());
  ParamsPtr params(OSSL_PARAM_BLD_to_param(build.get()));
  PkeyCtxPtr pctx(EVP_PKEY_CTX_new_from_name(detail::openssl_context(), "RSA", nullptr));
  EVP_PKEY* pkey = nullptr;
  if (!params || !pctx || EVP_PKEY_fromdata_init(pctx.get()) != 1 ||
      EVP_PKEY_fromdata(pctx.get(), &pkey, with_private ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY,
                        params.get()) != 1)
    throw InvalidKey("RSA key: OpenSSL refused the components: " + openssl_reason());
  return PkeyPtr(pkey);
}

PkeyPtr decode(const char* input_type, Bytes bytes) {
  EVP_PKEY* pkey = nullptr;
  DecoderPtr decoder(OSSL_DECODER_CTX_new_for_pkey(&pkey, input_type, nullptr, "RSA", 0,
                                                   detail::openssl_context(), nullptr));
  if (!decoder) throw DriverFailure("RSA key: no decoder: " + openssl_reason());
  const unsigned char* data = bytes.data();
  std::size_t left = bytes.size();
  if (OSSL_DECODER_from_data(decoder.get(), &data, &left) != 1 || pkey == nullptr) {
    ERR_clear_error();
    throw InvalidKey(std::string("RSA key: not an unencrypted RSA key in ") + input_type +
                     " (PKCS#8, PKCS#1 or SubjectPublicKeyInfo)");
  }
  return PkeyPtr(pkey);
}

bool has_private_parts(const EVP_PKEY* pkey) {
  return get_bn(pkey, OSSL_PKEY_PARAM_RSA_D) != nullptr;
}

}  // namespace

std::string_view to_string(RsaPadding padding) noexcept {
  switch (padding) {
    case RsaPadding::pkcs1:
      return "pkcs1";
    case RsaPadding::pss:
      return "pss";
    case RsaPadding::oaep:
      return "oaep";
    case RsaPadding::none:
      return "none";
  }
  return "?";
}

namespace {

// The blob of an OpenSSL key; private keys lacking CRT components get them.
struct Encoded {
  SecretBytes blob;
  std::size_t bits = 0;
  std::vector<std::uint8_t> modulus;  // big-endian, padded to the modulus's bytes
};

Encoded encode(EVP_PKEY* key) {
  if (EVP_PKEY_get_base_id(key) != EVP_PKEY_RSA)
    throw InvalidKey("RSA key: not an rsaEncryption key (RSA-PSS restricted keys are not served)");
  const int bits = EVP_PKEY_get_bits(key);
  if (bits <= 0 || bits > kMaxBits)
    throw InvalidKey("RSA key: a modulus of " + std::to_string(bits) + " bits");
  PkeyPtr full;
  const bool is_private = has_private_parts(key);
  if (is_private && get_bn(key, OSSL_PKEY_PARAM_RSA_FACTOR1) == nullptr) {
    // d without its factors (as a PKCS#1 key may come from a token): derive them.
    const auto bytes = [&](const char* name) {
      BnPtr bn = get_bn(key, name);
      std::vector<std::uint8_t> out(bn ? static_cast<std::size_t>(BN_num_bytes(bn.get())) : 0);
      if (bn) BN_bn2bin(bn.get(), out.data());
      return out;
    };
    auto n = bytes(OSSL_PKEY_PARAM_RSA_N), e = bytes(OSSL_PKEY_PARAM_RSA_E),
         d = bytes(OSSL_PKEY_PARAM_RSA_D);
    full = from_params({.n = n, .e = e, .d = d}, true);
    secure_wipe(d.data(), d.size());
    key = full.get();
  }
  unsigned char* der = nullptr;
  int length = 0;
  if (is_private) {
    Pkcs8Ptr info(EVP_PKEY2PKCS8(key));
    if (info) length = i2d_PKCS8_PRIV_KEY_INFO(info.get(), &der);
  } else {
    length = i2d_PUBKEY(key, &der);
  }
  if (length <= 0 || der == nullptr)
    throw DriverFailure("RSA key: could not encode it: " + openssl_reason());
  std::vector<std::uint8_t> blob(kRsaKeyBlobHeader + static_cast<std::size_t>(length));
  const std::size_t modulus = (static_cast<std::size_t>(bits) + 7) / 8;
  blob[0] =
      static_cast<std::uint8_t>(is_private ? RsaKeyForm::private_key : RsaKeyForm::public_key);
  blob[1] = static_cast<std::uint8_t>(modulus >> 8);
  blob[2] = static_cast<std::uint8_t>(modulus);
  std::copy(der, der + length, blob.begin() + kRsaKeyBlobHeader);
  OPENSSL_clear_free(der, static_cast<std::size_t>(length));
  std::vector<std::uint8_t> n_bytes(modulus);
  const BnPtr n = get_bn(key, OSSL_PKEY_PARAM_RSA_N);
  if (!n || BN_bn2binpad(n.get(), n_bytes.data(), static_cast<int>(modulus)) < 0)
    throw DriverFailure("RSA key: no modulus: " + openssl_reason());
  Encoded out{SecretBytes(blob), static_cast<std::size_t>(bits), std::move(n_bytes)};
  secure_wipe(blob.data(), blob.size());
  return out;
}

}  // namespace

RsaKey RsaKey::from_der(Bytes der) {
  PkeyPtr pkey = decode("DER", der);
  Encoded e = encode(pkey.get());
  return RsaKey(std::move(e.blob), e.bits, std::move(e.modulus));
}

RsaKey RsaKey::from_pem(std::string_view pem) {
  PkeyPtr pkey =
      decode("PEM", Bytes(reinterpret_cast<const std::uint8_t*>(pem.data()), pem.size()));
  Encoded e = encode(pkey.get());
  return RsaKey(std::move(e.blob), e.bits, std::move(e.modulus));
}

RsaKey RsaKey::from_components(const Components& c) {
  if (c.n.empty() || c.e.empty()) throw InvalidKey("RSA key: n and e are both needed");
  if (c.n.size() > kMaxBits / 8) throw InvalidKey("RSA key: a modulus over 16384 bits");
  PkeyPtr pkey = from_params(c, !c.d.empty());
  Encoded e = encode(pkey.get());
  return RsaKey(std::move(e.blob), e.bits, std::move(e.modulus));
}

RsaKey RsaKey::generate(std::size_t bits) {
  if (bits != 2048 && bits != 3072 && bits != 4096)
    throw Unsupported("RSA key generation: 2048, 3072 or 4096 bits, not " + std::to_string(bits));
  PkeyPtr pkey(EVP_PKEY_Q_keygen(detail::openssl_context(), nullptr, "RSA", bits));
  if (!pkey) throw DriverFailure("RSA key generation failed: " + openssl_reason());
  Encoded e = encode(pkey.get());
  return RsaKey(std::move(e.blob), e.bits, std::move(e.modulus));
}

std::size_t RsaKey::size() const noexcept {
  return (bits_ + 7) / 8;
}

bool RsaKey::has_private() const noexcept {
  return !blob_.empty() && (blob_.data()[0] == static_cast<std::uint8_t>(RsaKeyForm::private_key) ||
                            blob_.data()[0] == static_cast<std::uint8_t>(RsaKeyForm::kernel_key));
}

const Algorithm& RsaKey::algorithm() const {
  for (const Algorithm& a : algorithms())
    if (a.kind == AlgorithmKind::public_key && a.output_size * 8 == bits_) return a;
  throw Unsupported("RSA keys of " + std::to_string(bits_) +
                    " bits are not served: cryptoaccel takes 2048, 3072 and 4096-bit moduli");
}

std::vector<std::uint8_t> RsaKey::public_der() const {
  const auto view = read_rsa_key_blob(blob_.span());
  if (!view) throw InvalidKey("RSA key: empty");
  if (view->form != RsaKeyForm::private_key) return {view->der.begin(), view->der.end()};
  PkeyPtr pkey = decode("DER", view->der);
  unsigned char* der = nullptr;
  const int length = i2d_PUBKEY(pkey.get(), &der);
  if (length <= 0) throw DriverFailure("RSA key: could not encode it: " + openssl_reason());
  std::vector<std::uint8_t> out(der, der + length);
  OPENSSL_free(der);
  return out;
}

RsaKey RsaKey::public_key() const {
  return from_der(public_der());
}

}  // namespace cryptoaccel
