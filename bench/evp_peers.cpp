// The EVP peers of framework_bench: libcrypto called the way `openssl
// speed` calls it, through OpenSSL's default provider (raw/) or with
// cryptoaccel.so preferred (provider/: as configured, with its direct path;
// provider-sessions/: CRYPTOACCEL_DIRECT=0, every request through the
// framework's sessions). The same code for every family, so that a ratio
// is the provider's own cost per request.
#include "evp_peers.hpp"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace bench {
namespace {

void check(int ok, const char* what) {
  if (ok != 1) throw std::runtime_error(std::string("OpenSSL: ") + what + " failed");
}

struct CipherCtxFree {
  void operator()(EVP_CIPHER_CTX* p) const { EVP_CIPHER_CTX_free(p); }
};
struct CipherFree {
  void operator()(EVP_CIPHER* p) const { EVP_CIPHER_free(p); }
};
struct MdFree {
  void operator()(EVP_MD* p) const { EVP_MD_free(p); }
};
struct MacFree {
  void operator()(EVP_MAC* p) const { EVP_MAC_free(p); }
};
struct MacCtxFree {
  void operator()(EVP_MAC_CTX* p) const { EVP_MAC_CTX_free(p); }
};
using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree>;

// A fetched cipher and a context keyed for encryption with padding off, as
// openssl speed -evp sets it up.
CipherCtx keyed_cipher(const EvpPeer& peer, const char* name) {
  std::unique_ptr<EVP_CIPHER, CipherFree> cipher(
      EVP_CIPHER_fetch(peer.libctx, name, peer.properties));
  if (!cipher) throw std::runtime_error(std::string("OpenSSL: no cipher ") + name);
  CipherCtx ctx(EVP_CIPHER_CTX_new());
  if (!ctx) throw std::runtime_error("OpenSSL: EVP_CIPHER_CTX_new failed");
  check(EVP_CipherInit_ex2(ctx.get(), cipher.get(), kKey16.data(), kIv16.data(), 1, nullptr),
        "EVP_CipherInit_ex2");
  check(EVP_CIPHER_CTX_set_padding(ctx.get(), 0), "EVP_CIPHER_CTX_set_padding");
  return ctx;  // the context holds its own reference to the cipher
}

int as_int(std::size_t size) {
  return static_cast<int>(size);
}

// A library context with cryptoaccel.so loaded from `dir` (and default,
// for what it does not offer), the provider's `direct` setting as asked;
// null, with the reason on stderr, when it does not load.
OSSL_LIB_CTX* provider_context(const char* dir, bool direct) {
  OSSL_LIB_CTX* libctx = OSSL_LIB_CTX_new();
  if (libctx == nullptr) return nullptr;
  OSSL_PROVIDER_set_default_search_path(libctx, dir);
  // The provider reads CRYPTOACCEL_DIRECT when it loads.
  const char* before = std::getenv("CRYPTOACCEL_DIRECT");
  const std::string kept = before ? before : "";
  if (direct)
    unsetenv("CRYPTOACCEL_DIRECT");
  else
    setenv("CRYPTOACCEL_DIRECT", "0", 1);
  OSSL_PROVIDER* ours = OSSL_PROVIDER_load(libctx, "cryptoaccel");
  if (before)
    setenv("CRYPTOACCEL_DIRECT", kept.c_str(), 1);
  else
    unsetenv("CRYPTOACCEL_DIRECT");
  if (ours == nullptr || OSSL_PROVIDER_load(libctx, "default") == nullptr) {
    std::fprintf(stderr, "framework_bench: cryptoaccel.so did not load from %s: %s\n", dir,
                 ERR_reason_error_string(ERR_peek_last_error()));
    ERR_clear_error();
    OSSL_LIB_CTX_free(libctx);
    return nullptr;
  }
  return libctx;
}

}  // namespace

std::vector<EvpPeer> evp_peers(const char* provider_dir) {
  std::vector<EvpPeer> peers{{"raw", "raw EVP (default provider)", nullptr, nullptr}};
  if (OSSL_LIB_CTX* direct = provider_context(provider_dir, true))
    peers.push_back({"provider", "EVP, cryptoaccel provider", direct, "provider=cryptoaccel"});
  if (OSSL_LIB_CTX* sessions = provider_context(provider_dir, false))
    peers.push_back({"provider-sessions", "EVP, cryptoaccel provider, CRYPTOACCEL_DIRECT=0",
                     sessions, "provider=cryptoaccel"});
  return peers;  // the contexts live as long as the process
}

// openssl speed -evp aes-128-cbc: EVP_EncryptUpdate in place, in a loop.
void evp_cbc_update(benchmark::State& state, const EvpPeer& peer, std::size_t size) {
  guarded(state, [&] {
    CipherCtx ctx = keyed_cipher(peer, "AES-128-CBC");
    Buffer buffer(size);
    int outl = 0;
    for (auto _ : state) {
      if (EVP_EncryptUpdate(ctx.get(), buffer.data(), &outl, buffer.data(), as_int(size)) != 1)
        throw std::runtime_error("OpenSSL: EVP_EncryptUpdate failed");
      benchmark::DoNotOptimize(buffer.data());
    }
    finish(state, "aes-128-cbc", "EVP_EncryptUpdate (in place, keyed ctx)", peer.label, size);
  });
}

// The peer of a one-shot encrypt with IV: set the IV, update, final.
void evp_cbc_encrypt(benchmark::State& state, const EvpPeer& peer, std::size_t size) {
  guarded(state, [&] {
    CipherCtx ctx = keyed_cipher(peer, "AES-128-CBC");
    Buffer buffer(size);
    int outl = 0, finl = 0;
    for (auto _ : state) {
      if (EVP_CipherInit_ex2(ctx.get(), nullptr, nullptr, kIv16.data(), 1, nullptr) != 1 ||
          EVP_EncryptUpdate(ctx.get(), buffer.data(), &outl, buffer.data(), as_int(size)) != 1 ||
          EVP_EncryptFinal_ex(ctx.get(), buffer.data() + outl, &finl) != 1)
        throw std::runtime_error("OpenSSL: CBC encrypt failed");
      benchmark::DoNotOptimize(buffer.data());
    }
    finish(state, "aes-128-cbc", "EVP init(IV)+update+final (in place)", peer.label, size);
  });
}

// The peer of seal: per request set the IV (and, with `rekey`, the key too),
// update in place, final, read the tag.
void evp_gcm_seal(benchmark::State& state, const EvpPeer& peer, std::size_t size, bool rekey) {
  guarded(state, [&] {
    CipherCtx ctx = keyed_cipher(peer, "AES-128-GCM");
    Buffer buffer(size);
    std::array<std::uint8_t, 16> tag{};
    const std::uint8_t* key = rekey ? kKey16.data() : nullptr;
    int outl = 0, finl = 0;
    for (auto _ : state) {
      if (EVP_CipherInit_ex2(ctx.get(), nullptr, key, kNonce12.data(), 1, nullptr) != 1 ||
          EVP_EncryptUpdate(ctx.get(), buffer.data(), &outl, buffer.data(), as_int(size)) != 1 ||
          EVP_EncryptFinal_ex(ctx.get(), buffer.data() + outl, &finl) != 1 ||
          EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, static_cast<int>(tag.size()),
                              tag.data()) != 1)
        throw std::runtime_error("OpenSSL: GCM seal failed");
      benchmark::DoNotOptimize(tag.data());
    }
    finish(state, "aes-128-gcm",
           rekey ? "EVP init(key+IV)+update+final+tag (in place)"
                 : "EVP init(IV)+update+final+tag (in place)",
           peer.label, size);
  });
}

// What `openssl speed -evp aes-128-gcm` (OpenSSL 3.0, without -aead)
// actually times: EVP_EncryptUpdate in place on one IV, no final, no tag.
void evp_gcm_update(benchmark::State& state, const EvpPeer& peer, std::size_t size) {
  guarded(state, [&] {
    CipherCtx ctx = keyed_cipher(peer, "AES-128-GCM");
    Buffer buffer(size);
    int outl = 0;
    for (auto _ : state) {
      if (EVP_EncryptUpdate(ctx.get(), buffer.data(), &outl, buffer.data(), as_int(size)) != 1)
        check(EVP_CipherInit_ex2(ctx.get(), nullptr, nullptr, kNonce12.data(), 1, nullptr),
              "EVP_CipherInit_ex2");  // the counter ran out, as openssl speed recovers
      benchmark::DoNotOptimize(buffer.data());
    }
    finish(state, "aes-128-gcm", "EVP_EncryptUpdate only (openssl speed 3.0 -evp loop)", peer.label,
           size);
  });
}

// openssl speed -evp sha256: EVP_Digest one-shot with a fetched EVP_MD.
void evp_sha256(benchmark::State& state, const EvpPeer& peer, std::size_t size) {
  guarded(state, [&] {
    std::unique_ptr<EVP_MD, MdFree> md(EVP_MD_fetch(peer.libctx, "SHA256", peer.properties));
    if (!md) throw std::runtime_error("OpenSSL: no SHA256");
    Buffer buffer(size);
    std::array<std::uint8_t, EVP_MAX_MD_SIZE> out{};
    for (auto _ : state) {
      if (EVP_Digest(buffer.data(), size, out.data(), nullptr, md.get(), nullptr) != 1)
        throw std::runtime_error("OpenSSL: EVP_Digest failed");
      benchmark::DoNotOptimize(out.data());
    }
    finish(state, "sha256", "EVP_Digest one-shot", peer.label, size);
  });
}

// openssl speed -hmac sha256: EVP_MAC_init(NULL key)/update/final on a keyed
// context.
void evp_hmac(benchmark::State& state, const EvpPeer& peer, std::size_t size) {
  guarded(state, [&] {
    std::unique_ptr<EVP_MAC, MacFree> mac(EVP_MAC_fetch(peer.libctx, "HMAC", peer.properties));
    if (!mac) throw std::runtime_error("OpenSSL: no HMAC");
    std::unique_ptr<EVP_MAC_CTX, MacCtxFree> ctx(EVP_MAC_CTX_new(mac.get()));
    if (!ctx) throw std::runtime_error("OpenSSL: EVP_MAC_CTX_new failed");
    char digest[] = "SHA256";
    const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                                 OSSL_PARAM_END};
    const Bytes key = hmac_key();
    check(EVP_MAC_init(ctx.get(), key.data(), key.size(), params), "EVP_MAC_init");
    Buffer buffer(size);
    std::array<std::uint8_t, EVP_MAX_MD_SIZE> out{};
    for (auto _ : state) {
      std::size_t outl = 0;
      if (EVP_MAC_init(ctx.get(), nullptr, 0, nullptr) != 1 ||
          EVP_MAC_update(ctx.get(), buffer.data(), size) != 1 ||
          EVP_MAC_final(ctx.get(), out.data(), &outl, out.size()) != 1)
        throw std::runtime_error("OpenSSL: HMAC failed");
      benchmark::DoNotOptimize(out.data());
    }
    finish(state, "hmac-sha256", "EVP_MAC_init(NULL key)+update+final", peer.label, size);
  });
}

}  // namespace bench
