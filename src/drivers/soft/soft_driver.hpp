// The `soft` driver: OpenSSL 3 libcrypto through EVP. It runs in its own
// library context with only the default and legacy providers loaded, so the
// application's configuration (including a default_properties that prefers
// the cryptoaccel provider) can never route it back into cryptoaccel.
// Algorithms are fetched once, when the driver is probed.
#pragma once

#include <array>
#include <vector>

#include "cryptoaccel/driver/driver.hpp"
#include "openssl_ptr.hpp"

namespace cryptoaccel::soft {

class SoftDriver final : public Driver {
 public:
  // Loads the providers and fetches every algorithm; a failure is reported
  // in the probe, not thrown.
  static DriverProbe probe();
  SoftDriver() = default;

  std::string_view name() const noexcept override { return "soft"; }
  std::string description() const override;
  DriverTraits traits() const noexcept override;
  std::span<const Capability> capabilities() const noexcept override { return capabilities_; }
  std::unique_ptr<DriverSession> open_session(const Algorithm& algorithm,
                                              std::span<const std::uint8_t> key) override;

 private:
  LibCtxPtr context_;
  ProviderPtr default_provider_;
  ProviderPtr legacy_provider_;
  std::array<CipherPtr, kAlgorithmCount> ciphers_;
  std::array<MdPtr, kAlgorithmCount> digests_;  // for digests and for HMAC's digest
  MacPtr hmac_;
  bool rsa_ = false;  // the default provider's RSA key management was fetched
  std::vector<Capability> capabilities_;
};

// Session factories, one per operation family (soft_cipher.cpp, soft_aead.cpp,
// soft_digest.cpp, soft_rsa.cpp). The EVP objects stay owned by the driver.
std::unique_ptr<DriverSession> open_cipher_session(const Algorithm& algorithm,
                                                   const EVP_CIPHER* cipher,
                                                   std::span<const std::uint8_t> key);
std::unique_ptr<DriverSession> open_aead_session(const Algorithm& algorithm,
                                                 const EVP_CIPHER* cipher,
                                                 std::span<const std::uint8_t> key);
std::unique_ptr<DriverSession> open_digest_session(const EVP_MD* md);
std::unique_ptr<DriverSession> open_hmac_session(EVP_MAC* mac, const EVP_MD* md,
                                                 std::span<const std::uint8_t> key);
// soft_rsa.cpp: the key blob is read into the driver's library context.
std::unique_ptr<DriverSession> open_rsa_session(OSSL_LIB_CTX* libctx, const Algorithm& algorithm,
                                                std::span<const std::uint8_t> key);

// Largest input handed to one EVP update call (EVP lengths are `int`).
inline constexpr std::size_t kMaxUpdate = std::size_t{1} << 30;

}  // namespace cryptoaccel::soft
