#include "targets.hpp"

#include <openssl/err.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

namespace cryptoaccel::fuzz {

const char* family_name(Family f) {
  switch (f) {
    case Family::cipher:
      return "cipher";
    case Family::aead:
      return "aead";
    case Family::digest:
      return "digest";
    case Family::mac:
      return "mac";
  }
  return "?";
}

namespace {

constexpr const char* kProvider = "cryptoaccel";

bool from_module(const OSSL_PROVIDER* p) {
  return p != nullptr && std::string(OSSL_PROVIDER_get0_name(p)) == kProvider;
}

// The names the module offers, in a stable order.
struct Offered {
  std::vector<std::string> ciphers, digests, macs;
};

Offered offered(OSSL_LIB_CTX* ctx) {
  Offered o;
  EVP_CIPHER_do_all_provided(
      ctx,
      [](EVP_CIPHER* c, void* arg) {
        if (from_module(EVP_CIPHER_get0_provider(c)))
          static_cast<Offered*>(arg)->ciphers.push_back(EVP_CIPHER_get0_name(c));
      },
      &o);
  EVP_MD_do_all_provided(
      ctx,
      [](EVP_MD* m, void* arg) {
        if (from_module(EVP_MD_get0_provider(m)))
          static_cast<Offered*>(arg)->digests.push_back(EVP_MD_get0_name(m));
      },
      &o);
  EVP_MAC_do_all_provided(
      ctx,
      [](EVP_MAC* m, void* arg) {
        if (from_module(EVP_MAC_get0_provider(m)))
          static_cast<Offered*>(arg)->macs.push_back(EVP_MAC_get0_name(m));
      },
      &o);
  for (auto* v : {&o.ciphers, &o.digests, &o.macs}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  return o;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

Setup::Setup(const std::string& module_path, bool self_check, const std::string& config) {
  for (auto& c : libctx) c.reset(OSSL_LIB_CTX_new());
  if (!config.empty() && OSSL_LIB_CTX_load_config(libctx[1].get(), config.c_str()) != 1) {
    ERR_print_errors_fp(stderr);
    throw std::runtime_error("cannot load the OpenSSL configuration " + config);
  }
  // A: OpenSSL's default provider, and its legacy one for DES.
  for (const char* name : {"default", "legacy"})
    providers.emplace_back(OSSL_PROVIDER_load(libctx[0].get(), name));
  // The module is always loaded into B's context to learn what it offers,
  // by its name from its folder: "provider=cryptoaccel" matches that name.
  const std::filesystem::path path(module_path);
  OSSL_PROVIDER_set_default_search_path(libctx[1].get(), path.parent_path().c_str());
  ProviderPtr module(OSSL_PROVIDER_load(libctx[1].get(), path.stem().c_str()));
  if (!module) {
    ERR_print_errors_fp(stderr);
    throw std::runtime_error("cannot load the provider module " + module_path);
  }
  const Offered o = offered(libctx[1].get());
  if (self_check) {
    // B: a fresh context with "default" alone, fetched like A.
    module.reset();
    libctx[1].reset(OSSL_LIB_CTX_new());
    providers.emplace_back(OSSL_PROVIDER_load(libctx[1].get(), "legacy"));
  } else {
    providers.push_back(std::move(module));
  }
  providers.emplace_back(OSSL_PROVIDER_load(libctx[1].get(), "default"));
  const char* propq_b = self_check ? nullptr : "provider=cryptoaccel";

  for (const std::string& name : o.ciphers) {
    Target t{Family::cipher, upper(name), name, "", {}, {}, {}};
    t.cipher[0].reset(EVP_CIPHER_fetch(libctx[0].get(), name.c_str(), nullptr));
    t.cipher[1].reset(EVP_CIPHER_fetch(libctx[1].get(), name.c_str(), propq_b));
    if (!t.cipher[0] || !t.cipher[1]) {
      skipped.push_back(name);
      continue;
    }
    if (EVP_CIPHER_get_flags(t.cipher[0].get()) & EVP_CIPH_FLAG_AEAD_CIPHER)
      t.family = Family::aead;
    targets.push_back(std::move(t));
  }
  for (const std::string& name : o.digests) {
    Target t{Family::digest, upper(name), name, "", {}, {}, {}};
    t.md[0].reset(EVP_MD_fetch(libctx[0].get(), name.c_str(), nullptr));
    t.md[1].reset(EVP_MD_fetch(libctx[1].get(), name.c_str(), propq_b));
    if (!t.md[0] || !t.md[1]) {
      skipped.push_back(name);
      continue;
    }
    hmac_digests.push_back(name);
    targets.push_back(std::move(t));
  }
  // HMAC is fetched whatever the digest: digests cryptoaccel lacks too.
  for (const char* extra : {"SHA3-256", "SHA2-512/256"}) hmac_digests.push_back(extra);
  for (const std::string& name : o.macs) {
    for (const std::string& digest : hmac_digests) {
      Target t{Family::mac, upper(name) + "/" + upper(digest), name, digest, {}, {}, {}};
      t.mac[0].reset(EVP_MAC_fetch(libctx[0].get(), name.c_str(), nullptr));
      t.mac[1].reset(EVP_MAC_fetch(libctx[1].get(), name.c_str(), propq_b));
      if (!t.mac[0] || !t.mac[1]) {
        skipped.push_back(name);
        break;
      }
      targets.push_back(std::move(t));
      if (upper(name) != "HMAC") break;  // other MACs: one target, no digest
    }
  }
  ERR_clear_error();
}

Setup::~Setup() {
  targets.clear();
  while (!providers.empty()) providers.pop_back();
}

}  // namespace cryptoaccel::fuzz
