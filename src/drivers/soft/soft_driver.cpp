#include "soft_driver.hpp"

#include <openssl/crypto.h>
#include <openssl/err.h>

#include <cstdint>
#include <limits>
#include <string>

namespace cryptoaccel {

DriverProbe probe_soft_driver() {
  return soft::SoftDriver::probe();
}

namespace soft {
namespace {

// SP 800-38E caps an XTS data unit at 2^20 blocks; OpenSSL enforces it.
constexpr std::size_t kXtsMaxDataUnit = std::size_t{1} << 24;

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
  // Single DES lives only in the legacy provider. Without it, DES-CBC is left
  // out and the note says why; everything else still works.
  driver->legacy_provider_.reset(OSSL_PROVIDER_load(ctx, "legacy"));
  if (!driver->legacy_provider_)
    result.notes.push_back("OpenSSL's legacy provider did not load (" + last_openssl_error() +
                           "): des-cbc is not offered");

  driver->hmac_.reset(EVP_MAC_fetch(ctx, "HMAC", nullptr));
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
    }
    if (!fetched) {
      if (a.id != AlgorithmId::des_cbc || driver->legacy_provider_)
        result.notes.push_back("OpenSSL has no " + std::string(a.openssl_name) + ": " +
                               last_openssl_error());
      ERR_clear_error();
      continue;
    }
    driver->capabilities_.push_back(Capability{
        .algorithm = a.id,
        .key_sizes = a.key_size,
        .iv_sizes = a.iv_sizes,
        .tag_sizes = a.tag_sizes,
        .max_request =
            a.mode == CipherMode::xts ? kXtsMaxDataUnit : std::numeric_limits<std::size_t>::max()});
  }
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
  }
  throw Unsupported("soft: " + std::string(algorithm.name) + " is not available");
}

}  // namespace soft
}  // namespace cryptoaccel
