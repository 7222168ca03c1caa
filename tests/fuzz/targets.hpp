// The two sides and what is fuzzed: every cipher, digest and MAC that
// cryptoaccel offers (asked of the loaded module, so a new algorithm is
// fuzzed without a change here), each fetched from OpenSSL's default
// provider (A) and from cryptoaccel (B), plus HMAC over digests that
// cryptoaccel does not offer itself.
#pragma once

#include <openssl/evp.h>
#include <openssl/provider.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace cryptoaccel::fuzz {

struct LibCtxFree {
  void operator()(OSSL_LIB_CTX* c) const { OSSL_LIB_CTX_free(c); }
};
struct ProviderUnload {
  void operator()(OSSL_PROVIDER* p) const { OSSL_PROVIDER_unload(p); }
};
struct CipherFree {
  void operator()(EVP_CIPHER* c) const { EVP_CIPHER_free(c); }
};
struct MdFree {
  void operator()(EVP_MD* m) const { EVP_MD_free(m); }
};
struct MacFree {
  void operator()(EVP_MAC* m) const { EVP_MAC_free(m); }
};
using LibCtxPtr = std::unique_ptr<OSSL_LIB_CTX, LibCtxFree>;
using ProviderPtr = std::unique_ptr<OSSL_PROVIDER, ProviderUnload>;
using CipherPtr = std::unique_ptr<EVP_CIPHER, CipherFree>;
using MdPtr = std::unique_ptr<EVP_MD, MdFree>;
using MacPtr = std::unique_ptr<EVP_MAC, MacFree>;

enum class Family { cipher, aead, digest, mac };
const char* family_name(Family f);

struct Target {
  Family family;
  std::string name;    // "AES-128-GCM", "SHA2-256", "HMAC/SHA3-256"
  std::string fetch;   // the name fetched on both sides
  std::string digest;  // HMAC's digest
  std::array<CipherPtr, 2> cipher;
  std::array<MdPtr, 2> md;
  std::array<MacPtr, 2> mac;
};

struct Setup {
  // Loads the module into B's library context (with "default", which the
  // provider may use); in the self-check B fetches from "default" alone.
  // A non-empty `config` is an OpenSSL configuration loaded into B's
  // context first, whose section `cryptoaccel` gives the module its keys
  // (`driver = dpdk:crypto_aesni_mb0`, `dpdk = ...`).
  Setup(const std::string& module_path, bool self_check, const std::string& config = {});

  std::array<LibCtxPtr, 2> libctx;
  std::vector<ProviderPtr> providers;  // unloaded before the contexts
  std::vector<Target> targets;
  std::vector<std::string> hmac_digests;  // "digest" values the MAC sequences try
  std::vector<std::string> skipped;       // offered by B but not by A
  // Declared last: the fetched algorithms go before the providers.
  ~Setup();
};

}  // namespace cryptoaccel::fuzz
