// RSA through EVP_PKEY: one key and one operation context per session,
// initialised per request with the request's padding and digests.
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/x509.h>

#include <array>
#include <vector>

#include "cryptoaccel/driver/rsa_padding.hpp"
#include "cryptoaccel/driver/secret_bytes.hpp"
#include "cryptoaccel/rsa.hpp"
#include "soft_driver.hpp"

namespace cryptoaccel::soft {
namespace {

using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, Deleter<EVP_PKEY_CTX_free>>;

char* utf8(std::string_view text) {
  // OSSL_PARAM wants a non-const pointer it never writes through.
  return const_cast<char*>(text.data());
}

// The request's padding and digests as OpenSSL's parameters: signature and
// asymmetric-cipher parameters share their names for these.
struct Parameters {
  std::array<OSSL_PARAM, 6> list{};
  int salt = 0;

  Parameters(const RsaParameters& p, Operation op) {
    const bool signature = op == Operation::sign || op == Operation::verify;
    std::size_t n = 0;
    list[n++] = OSSL_PARAM_construct_utf8_string(
        signature ? OSSL_SIGNATURE_PARAM_PAD_MODE : OSSL_ASYM_CIPHER_PARAM_PAD_MODE,
        utf8(p.padding == RsaPadding::pkcs1  ? OSSL_PKEY_RSA_PAD_MODE_PKCSV15
             : p.padding == RsaPadding::pss  ? OSSL_PKEY_RSA_PAD_MODE_PSS
             : p.padding == RsaPadding::none ? OSSL_PKEY_RSA_PAD_MODE_NONE
                                             : OSSL_PKEY_RSA_PAD_MODE_OAEP),
        0);
    if (p.padding == RsaPadding::pss) {
      list[n++] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST,
                                                   utf8(algorithm(p.digest).openssl_name), 0);
      list[n++] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_MGF1_DIGEST,
                                                   utf8(algorithm(p.mgf1_digest).openssl_name), 0);
      salt = p.salt_length;
      list[n++] = OSSL_PARAM_construct_int(OSSL_SIGNATURE_PARAM_PSS_SALTLEN, &salt);
    } else if (p.padding == RsaPadding::oaep) {
      list[n++] = OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST,
                                                   utf8(algorithm(p.digest).openssl_name), 0);
      list[n++] = OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST,
                                                   utf8(algorithm(p.mgf1_digest).openssl_name), 0);
      if (!p.label.empty())
        list[n++] = OSSL_PARAM_construct_octet_string(OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL,
                                                      const_cast<std::uint8_t*>(p.label.data()),
                                                      p.label.size());
    } else if (signature && p.digest != kNoDigest) {
      list[n++] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST,
                                                   utf8(algorithm(p.digest).openssl_name), 0);
    }
    list[n] = OSSL_PARAM_construct_end();
  }
};

class SoftRsaSession final : public DriverSession {
 public:
  SoftRsaSession(OSSL_LIB_CTX* libctx, PkeyPtr key, bool has_private, std::size_t modulus_bytes)
      : em_(modulus_bytes),
        key_(std::move(key)),
        ctx_(EVP_PKEY_CTX_new_from_pkey(libctx, key_.get(), nullptr)),
        has_private_(has_private) {
    if (!ctx_) throw DriverFailure("soft: EVP_PKEY_CTX_new_from_pkey failed");
  }

  std::size_t process(std::span<Request> batch) noexcept override {
    for (Request& r : batch) r.status = run(r);
    ERR_clear_error();
    return batch.size();
  }

 private:
  ErrorCode run(Request& r) noexcept {
    if (r.rsa == nullptr) return ErrorCode::invalid_argument;
    const bool private_op = r.op == Operation::sign || r.op == Operation::decrypt;
    if (private_op && !has_private_) return ErrorCode::invalid_key;
    Parameters params(*r.rsa, r.op);
    EVP_PKEY_CTX* ctx = ctx_.get();
    switch (r.op) {
      case Operation::sign: {
        std::size_t length = r.out.size();
        if (EVP_PKEY_sign_init_ex(ctx, params.list.data()) != 1 ||
            EVP_PKEY_sign(ctx, r.out.data(), &length, r.in.data(), r.in.size()) != 1 ||
            length != r.out.size())
          return ErrorCode::driver_failure;
        return ErrorCode::ok;
      }
      case Operation::verify:
        if (EVP_PKEY_verify_init_ex(ctx, params.list.data()) != 1) return ErrorCode::driver_failure;
        // Any refusal, a mismatch or a signature not below the modulus, is
        // the same answer: not valid.
        return EVP_PKEY_verify(ctx, r.tag.data(), r.tag.size(), r.in.data(), r.in.size()) == 1
                   ? ErrorCode::ok
                   : ErrorCode::authentication_failed;
      case Operation::encrypt: {
        std::size_t length = r.out.size();
        if (EVP_PKEY_encrypt_init_ex(ctx, params.list.data()) != 1 ||
            EVP_PKEY_encrypt(ctx, r.out.data(), &length, r.in.data(), r.in.size()) != 1 ||
            length != r.out.size())
          return ErrorCode::driver_failure;
        return ErrorCode::ok;
      }
      case Operation::decrypt:
        return decrypt(r);
      case Operation::digest:
        break;
    }
    return ErrorCode::invalid_argument;
  }

  // m = c^d mod n into `out`, a whole modulus; `length` its length.
  ErrorCode raw_decrypt(std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                        std::size_t& length) noexcept {
    const Parameters none({.padding = RsaPadding::none}, Operation::decrypt);
    length = out.size();
    if (EVP_PKEY_decrypt_init_ex(ctx_.get(), none.list.data()) != 1)
      return ErrorCode::driver_failure;
    // Only a ciphertext not below the modulus fails here: public knowledge.
    if (EVP_PKEY_decrypt(ctx_.get(), out.data(), &length, in.data(), in.size()) != 1) {
      length = 0;
      return ErrorCode::decryption_failed;
    }
    return ErrorCode::ok;
  }

  // PKCS#1 v1.5 and OAEP: the raw private operation, then the padding
  // checked here (rsa_padding.hpp: constant time, one answer for every bad
  // ciphertext), not by OpenSSL. Before 3.2 OpenSSL's failed check raises
  // an error on the thread's error queue that a success does not, which
  // takes measurably longer: the Marvin attack's timing signal, seen here
  // as malformed ciphertexts' times shifted in the guest's timing test.
  ErrorCode decrypt(Request& r) noexcept {
    if (r.rsa->padding == RsaPadding::none) return raw_decrypt(r.in, r.out, r.out_length);
    const std::span<std::uint8_t> em(em_);
    if (r.out.size() < em.size()) return ErrorCode::invalid_argument;
    std::size_t length = 0;
    ErrorCode result = raw_decrypt(r.in, em, length);
    if (result == ErrorCode::ok)
      result = length == em.size()
                   ? rsa_padding::decode_encryption(*r.rsa, em, r.out, r.out_length)
                   : ErrorCode::driver_failure;  // OpenSSL gives a whole modulus
    secure_wipe(em.data(), em.size());
    if (result != ErrorCode::ok) {
      secure_wipe(r.out.data(), r.out.size());
      r.out_length = 0;
    }
    return result;
  }

  std::vector<std::uint8_t> em_;  // the raw decryption, wiped after each
  PkeyPtr key_;
  PkeyCtxPtr ctx_;
  bool has_private_;
};

}  // namespace

std::unique_ptr<DriverSession> open_rsa_session(OSSL_LIB_CTX* libctx, const Algorithm& algorithm,
                                                std::span<const std::uint8_t> key) {
  const auto blob = read_rsa_key_blob(key);
  if (!blob) throw InvalidKey("soft: not an RSA key blob");
  if (blob->modulus_bytes != algorithm.output_size)
    throw InvalidKey("soft: " + std::string(algorithm.name) + " takes a " +
                     std::to_string(algorithm.output_size * 8) + "-bit modulus");
  if (blob->form == RsaKeyForm::kernel_key)
    throw Unsupported(
        "soft: the private key is kept in the kernel keyring; only the keyring driver can use it");
  const unsigned char* der = blob->der.data();
  const long length = static_cast<long>(blob->der.size());
  const bool has_private = blob->form == RsaKeyForm::private_key;
  PkeyPtr pkey(has_private ? d2i_AutoPrivateKey_ex(nullptr, &der, length, libctx, nullptr)
                           : d2i_PUBKEY_ex(nullptr, &der, length, libctx, nullptr));
  if (!pkey || EVP_PKEY_get_base_id(pkey.get()) != EVP_PKEY_RSA) {
    ERR_clear_error();
    throw InvalidKey("soft: OpenSSL could not read the RSA key");
  }
  return std::make_unique<SoftRsaSession>(libctx, std::move(pkey), has_private,
                                          algorithm.output_size);
}

}  // namespace cryptoaccel::soft
