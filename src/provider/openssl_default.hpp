// OpenSSL's own implementations, in a library context that belongs to the
// provider and loads no configuration, so that it can never reach
// cryptoaccel itself. They serve what no driver can while keeping OpenSSL's
// contract: an AEAD message that arrives in pieces (CMS, Python's
// `cryptography`) and HMAC over a digest that no driver offers (SHA-3,
// SHA-512/256, BLAKE2, SM3). What they serve is counted and shown with the
// drivers' usage under the name "openssl-default".
#pragma once

#include <openssl/core.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/types.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "cryptoaccel/algorithm.hpp"

namespace cryptoaccel::provider {

struct CipherCtxFree {
  void operator()(EVP_CIPHER_CTX* ctx) const noexcept { EVP_CIPHER_CTX_free(ctx); }
};
using CipherCtxPtr = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree>;

class OpenSslDefault {
 public:
  // Throws DriverFailure when OpenSSL cannot create the context.
  OpenSslDefault();
  ~OpenSslDefault();
  OpenSslDefault(const OpenSslDefault&) = delete;
  OpenSslDefault& operator=(const OpenSslDefault&) = delete;

  OSSL_LIB_CTX* libctx() const noexcept { return libctx_; }

  // The default provider's own implementation of the algorithm OpenSSL
  // calls `name` for `operation` (OSSL_OP_CIPHER, ...), as its dispatch
  // table, and the provider context its functions expect: what the direct
  // path registers (forwarded.hpp). Null when it has none.
  const OSSL_DISPATCH* implementation(int operation, std::string_view name) const noexcept;
  void* default_provider_context() const noexcept;
  // The default provider's implementation of `cipher` (fetched once; owned
  // here). Throws Unsupported when OpenSSL has none.
  const EVP_CIPHER* cipher(const Algorithm& cipher);

  // Random bytes from this context's DRBG (OpenSSL's CTR-DRBG, seeded from
  // the operating system): never the default library context's, which an
  // application that isolates its providers leaves with the null provider.
  // `secret` draws from the private DRBG (keys), else the public one (IVs).
  bool random_bytes(std::uint8_t* out, std::size_t n, bool secret) noexcept;

  // What the OpenSSL this module runs in does where its versions differ,
  // for the framework path to do the same: probed on OpenSSL's own
  // implementations here when the provider starts, before any application
  // thread can fork while the probe holds one of this context's locks.
  struct Contract {
    // AES-GCM: reading the IV of an encryption given none makes the random
    // one there and then (OpenSSL 4.0; 3.x refuses the read).
    bool gcm_iv_made_when_read = false;
    // ChaCha20-Poly1305: after final, no payload until a new nonce is set
    // (OpenSSL since 2026; earlier a second message reuses the nonce).
    bool chacha_poly_nonce_once = false;
    // ChaCha20-Poly1305: no AAD once the payload has begun (OpenSSL 4.0;
    // 3.x hashes it in where it comes).
    bool chacha_poly_aad_first = false;
    // AES-GCM: a decryption ended before its tag was given says so on the
    // error queue (OpenSSL 4.0; 3.x fails it with the queue empty).
    bool gcm_tag_not_set_raised = false;
    // A parameter set that names a parameter twice is refused (OpenSSL
    // 3.6's generated decoders; before, the first one counts).
    bool repeated_param_refused = false;
    // The generic ciphers' "num" is below the block size: CTR (a stream,
    // block size 1) takes only 0 (OpenSSL 3.0.20 and 3.5.5 on; before, any
    // number below 16).
    bool num_below_block_size = false;
    // ChaCha20 counts a block it started as used: a key-only re-init goes
    // on at the next block (OpenSSL 3.6 on; before, it starts the current
    // block again).
    bool chacha20_started_block_counted = false;
    // ChaCha20-Poly1305: EVP_Cipher(ctx, NULL, NULL, 0) ends the message,
    // making (or checking) the tag, without spending the nonce as final
    // does (OpenSSL 3.0.22 on; before, it does nothing).
    bool chacha_poly_empty_cipher_ends_message = false;
    // ChaCha20-Poly1305: a decryption's final before its tag was given is
    // refused and the message goes on (OpenSSL 4.0; before, the final
    // compares none of the tag, and ends the message).
    bool chacha_poly_final_waits_for_tag = false;
  };
  const Contract& contract() const noexcept { return contract_; }

  // One request of `bytes` served here for `what` ("aes-128-gcm",
  // "hmac(SHA3-256)").
  void count(const std::string& what, std::size_t bytes);
  // "  WHAT openssl-default requests=N bytes=N failures=0" lines.
  std::string usage_text() const;

 private:
  OSSL_LIB_CTX* libctx_ = nullptr;
  OSSL_PROVIDER* default_ = nullptr;  // loaded in libctx_, kept for its tables
  OSSL_PROVIDER* legacy_ = nullptr;   // loaded where installed; may be null
  mutable std::mutex mutex_;
  Contract contract_;
  std::map<std::string, EVP_CIPHER*, std::less<>> ciphers_;
  struct Usage {
    std::uint64_t requests = 0, bytes = 0;
  };
  std::map<std::string, Usage, std::less<>> usage_;
};

}  // namespace cryptoaccel::provider
