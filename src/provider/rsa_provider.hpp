// RSA in the provider: key management, signatures and the asymmetric
// cipher. Each wraps OpenSSL's default implementation, run in the
// provider's own library context (openssl_default.hpp): a key is the
// default provider's key object plus ours, so that every part of OpenSSL's
// contract (import and export for decoders and encoders, generation,
// parameters, matching, AlgorithmIdentifiers) stays OpenSSL's own, and an
// operation's parameters are set on OpenSSL's context as well as read back
// from it. What the library serves (2048/3072/4096-bit keys; PKCS#1 v1.5
// and PSS signatures, PKCS#1 v1.5 and OAEP encryption, with the table's
// digests) goes through the dispatcher; anything else to OpenSSL's default.
#pragma once

#include <openssl/core_dispatch.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cryptoaccel/rsa.hpp"
#include "provider_context.hpp"

namespace cryptoaccel::provider {

// A function of the default provider's dispatch table, by id.
template <typename Fn>
Fn* inner_function(const OSSL_DISPATCH* table, int id) noexcept {
  for (; table != nullptr && table->function_id != 0; ++table)
    if (table->function_id == id) return reinterpret_cast<Fn*>(table->function);
  return nullptr;
}

// The default provider's RSA implementations, found once per provider.
struct RsaInner {
  explicit RsaInner(ProviderContext& pc);
  bool complete() const noexcept;

  void* provctx = nullptr;  // the default provider's context
  // Key management.
  OSSL_FUNC_keymgmt_new_fn* key_new = nullptr;
  OSSL_FUNC_keymgmt_free_fn* key_free = nullptr;
  OSSL_FUNC_keymgmt_gen_init_fn* gen_init = nullptr;
  OSSL_FUNC_keymgmt_gen_set_template_fn* gen_set_template = nullptr;
  OSSL_FUNC_keymgmt_gen_set_params_fn* gen_set_params = nullptr;
  OSSL_FUNC_keymgmt_gen_settable_params_fn* gen_settable_params = nullptr;
  OSSL_FUNC_keymgmt_gen_fn* gen = nullptr;
  OSSL_FUNC_keymgmt_gen_cleanup_fn* gen_cleanup = nullptr;
  OSSL_FUNC_keymgmt_get_params_fn* get_params = nullptr;
  OSSL_FUNC_keymgmt_gettable_params_fn* gettable_params = nullptr;
  OSSL_FUNC_keymgmt_set_params_fn* set_params = nullptr;
  OSSL_FUNC_keymgmt_settable_params_fn* settable_params = nullptr;
  OSSL_FUNC_keymgmt_has_fn* has = nullptr;
  OSSL_FUNC_keymgmt_validate_fn* validate = nullptr;
  OSSL_FUNC_keymgmt_match_fn* match = nullptr;
  OSSL_FUNC_keymgmt_import_fn* import = nullptr;
  OSSL_FUNC_keymgmt_import_types_fn* import_types = nullptr;
  OSSL_FUNC_keymgmt_export_fn* export_ = nullptr;
  OSSL_FUNC_keymgmt_export_types_fn* export_types = nullptr;
  OSSL_FUNC_keymgmt_dup_fn* dup = nullptr;
  // Signatures.
  const OSSL_DISPATCH* signature = nullptr;
  // The asymmetric cipher.
  const OSSL_DISPATCH* asym_cipher = nullptr;
};

// Our key object: the default provider's, and the library's key, made on
// first use from what the default's exports (never for keys the library has
// no row for, or with more than two primes).
struct RsaKeyObject {
  RsaKeyObject(ProviderContext& context, void* inner_key) : pc(&context), inner(inner_key) {}
  ~RsaKeyObject();
  RsaKeyObject(const RsaKeyObject&) = delete;
  RsaKeyObject& operator=(const RsaKeyObject&) = delete;

  // A session of this key for one operation, returned to the key's pool
  // when the lease ends; null when the library does not serve this key.
  class Lease {
   public:
    Lease(RsaKeyObject& key, std::unique_ptr<RsaSession> session)
        : key_(&key), session_(std::move(session)) {}
    Lease(Lease&&) = default;
    ~Lease();
    explicit operator bool() const noexcept { return session_ != nullptr; }
    RsaSession* operator->() const noexcept { return session_.get(); }
    RsaSession& operator*() const noexcept { return *session_; }

   private:
    RsaKeyObject* key_;
    std::unique_ptr<RsaSession> session_;
  };
  Lease lease();

  // `key_storage = keyring`: moves the private key into the kernel keyring
  // (RsaKey::keep_in_kernel_keyring) and replaces the default provider's
  // key with its public half, so that no copy stays in the process. Throws
  // Error saying why when that cannot be done; the key is then unusable.
  void keep_private_in_kernel();
  bool private_in_kernel() const noexcept { return private_in_kernel_; }
  // For a private-key operation the library does not serve: true, with the
  // reason raised, when the key's private half is in the kernel (the
  // default provider's key has none to fall back on).
  bool refuse_unserved_private(const char* operation) const noexcept;
  // The cryptoaccel-keyring: store's key: `inner` holds the public half,
  // `key` (already in the kernel keyring) serves the private operations.
  void adopt_kernel_key(RsaKey key);
  // A duplicate's library key: the same kernel key, shared.
  void share_kernel_key_of(RsaKeyObject& other);

  ProviderContext* pc;
  void* inner;

 private:
  // Builds key_ once; false when the library does not serve the key.
  bool served();
  std::mutex mutex_;
  bool tried_ = false;
  bool private_in_kernel_ = false;
  std::optional<RsaKey> key_;
  std::vector<std::unique_ptr<RsaSession>> idle_;
};

RsaInner& rsa_inner(ProviderContext& pc);

// The default provider's RSA tables wrapped: null when OpenSSL lacks them.
const OSSL_DISPATCH* rsa_keymgmt_functions() noexcept;
const OSSL_DISPATCH* rsa_signature_functions() noexcept;
const OSSL_DISPATCH* rsa_asym_cipher_functions() noexcept;

// The names OpenSSL's default provider gives RSA's key type, signature
// and cipher.
inline constexpr const char* kRsaNames = "RSA:rsaEncryption:1.2.840.113549.1.1.1";

// The digest row a name from OpenSSL's parameters means ("SHA256",
// "SHA2-256"), or kNoDigest for "" and nothing for one the table lacks.
std::optional<AlgorithmId> digest_named(std::string_view name) noexcept;

}  // namespace cryptoaccel::provider
