#include "soft_driver.hpp"

#include <openssl/crypto.h>
#include <openssl/err.h>

#include <cstdint>
#include <limits>
#include <string>

namespace cryptoaccel {

DriverProbe probe_soft_driver(std::string_view /*setting*/) {
  return soft::SoftDriver::probe();
}

namespace soft {
namespace {

// SP 800-38E caps an XTS data unit at 2^20 blocks; OpenSSL enforces it.
constexpr std::size_t kXtsMaxDataUnit = std::size_t{1} << 24;

// What may live only in OpenSSL's legacy provider: single DES always,
// RIPEMD-160 (and so its HMAC) before OpenSSL 3.0.7 added it to the
// default provider. Without the legacy provider they are left out, and one
// note says why, instead of one "OpenSSL has no ..." each.
bool legacy_only(AlgorithmId id) {
  return id == AlgorithmId::des_cbc || id == AlgorithmId::ripemd160 ||
         id == AlgorithmId::hmac_ripemd160;
}

std::string last_openssl_error() {
  const unsigned long code = ERR_peek_last_error();
  ERR_clear_error();
  if (code == 0) return "no detail from OpenSSL";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

}  // namespace

DriverProbe SoftDriver::probe() {
  DriverProbe result;
  auto driver = std::make_unique<SoftDriver>();
  driver->context_.reset(OSSL_LIB_CTX_new());
  if (!driver->context_) {
    result.absent_reason = "OSSL_LIB_CTX_new failed: " + last_openssl_error();
    return result;
  }
  OSSL_LIB_CTX* ctx = driver->context_.get();
  driver->default_provider_.reset(OSSL_PROVIDER_load(ctx, "default"));
  if (!driver->default_provider_) {
    result.absent_reason = "OpenSSL's default provider did not load: " + last_openssl_error();
    return result;
  }
  // Without the legacy provider everything else still works.
  driver->legacy_provider_.reset(OSSL_PROVIDER_load(ctx, "legacy"));
  const std::string legacy_error = driver->legacy_provider_ ? "" : last_openssl_error();
  std::string not_offered;  // "des-cbc, ripemd160": legacy-only and missing

  driver->hmac_.reset(EVP_MAC_fetch(ctx, "HMAC", nullptr));
  if (EVP_KEYMGMT* rsa = EVP_KEYMGMT_fetch(ctx, "RSA", nullptr)) {
    driver->rsa_ = true;
    EVP_KEYMGMT_free(rsa);
  }
  for (const Algorithm& a : algorithms()) {
    const std::size_t i = index_of(a.id);
    bool fetched = false;
    switch (a.kind) {
      case AlgorithmKind::cipher:
      case AlgorithmKind::aead: {
        const std::string name(a.openssl_name);
        driver->ciphers_[i].reset(EVP_CIPHER_fetch(ctx, name.c_str(), nullptr));
        fetched = driver->ciphers_[i] != nullptr;
        break;
      }
      case AlgorithmKind::digest: {
        const std::string name(a.openssl_name);
        driver->digests_[i].reset(EVP_MD_fetch(ctx, name.c_str(), nullptr));
        fetched = driver->digests_[i] != nullptr;
        break;
      }
      case AlgorithmKind::mac: {
        const std::string name(algorithm_or_throw(a.digest).openssl_name);
        driver->digests_[i].reset(EVP_MD_fetch(ctx, name.c_str(), nullptr));
        fetched = driver->digests_[i] != nullptr && driver->hmac_ != nullptr;
        break;
      }
      case AlgorithmKind::public_key:
        fetched = driver->rsa_;
        break;
    }
    if (!fetched) {
      if (legacy_only(a.id) && !driver->legacy_provider_)
        not_offered += (not_offered.empty() ? "" : ", ") + std::string(a.name);
      else
        result.notes.push_back("OpenSSL has no " + std::string(a.openssl_name) + ": " +
                               last_openssl_error());
      ERR_clear_error();
      continue;
    }
    driver->capabilities_.push_back(
        Capability{.algorithm = a.id,
                   .key_sizes = a.key_size,
                   .iv_sizes = a.iv_sizes,
                   .tag_sizes = a.tag_sizes,
                   .max_request = a.mode == CipherMode::xts ? kXtsMaxDataUnit
                                  : a.kind == AlgorithmKind::public_key
                                      ? a.output_size
                                      : std::numeric_limits<std::size_t>::max()});
  }
  if (!driver->legacy_provider_ && !not_offered.empty())
    result.notes.push_back(
        "OpenSSL's legacy provider did not load (" + legacy_error + "): " + not_offered +
        (not_offered.find(',') == std::string::npos ? " is" : " are") + " not offered");
  result.drivers.push_back(std::move(driver));
  return result;
}

std::string SoftDriver::description() const {
  return std::string(OpenSSL_version(OPENSSL_VERSION)) +
         " libcrypto through EVP (private library context: default" +
         (legacy_provider_ ? " and legacy providers)" : " provider)");
}

DriverTraits SoftDriver::traits() const noexcept {
  return DriverTraits{.kind = DriverKind::software,
                      .priority = 100,
                      .automatic = true,
                      .self_test = true,
                      .max_in_flight = 1};
}

std::unique_ptr<DriverSession> SoftDriver::open_session(const Algorithm& algorithm,
                                                        std::span<const std::uint8_t> key) {
  const std::size_t i = index_of(algorithm.id);
  switch (algorithm.kind) {
    case AlgorithmKind::cipher:
      if (ciphers_[i]) return open_cipher_session(algorithm, ciphers_[i].get(), key);
      break;
    case AlgorithmKind::aead:
      if (ciphers_[i]) return open_aead_session(algorithm, ciphers_[i].get(), key);
      break;
    case AlgorithmKind::digest:
      if (digests_[i]) return open_digest_session(digests_[i].get());
      break;
    case AlgorithmKind::mac:
      if (digests_[i] && hmac_) return open_hmac_session(hmac_.get(), digests_[i].get(), key);
      break;
    case AlgorithmKind::public_key:
      if (rsa_) return open_rsa_session(context_.get(), algorithm, key);
      break;
  }
  throw Unsupported("soft: " + std::string(algorithm.name) + " is not available");
}

}  // namespace soft
}  // namespace cryptoaccel
