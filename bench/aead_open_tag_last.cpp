// What an AEAD decryption with its tag given last (OpenVPN's receive path)
// costs through the provider's sessions, and what the CPU's share of it,
// the authenticator alone, costs against a plain decryption.
//
//   aead_open_tag_last MODULE [--seconds S]
//
// For AES-128-GCM, AES-256-GCM and ChaCha20-Poly1305 at 64, 256, 1420 and
// 16384 bytes (8 bytes of AAD), in one run on this machine:
//   openssl   OpenSSL's default provider: init, AAD, payload, tag, final
//   provider  the same calls to cryptoaccel.so through the framework's
//             sessions (CRYPTOACCEL_DIRECT=0): the payload on the driver's
//             AES-CTR or ChaCha20, the tag on the CPU
//   auth      the CPU's part alone: OpenSSL's GMAC or Poly1305 over the AAD
//             and the ciphertext, what the provider computes
// and prints MB/s, provider/openssl (speed) and "auth time", the time of
// the authenticator as a fraction of OpenSSL's whole decryption: what the
// CPU still spends per byte when a driver decrypts.
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using Bytes = std::vector<unsigned char>;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "aead_open_tag_last: %s\n", what);
  ERR_print_errors_fp(stderr);
  std::exit(1);
}

// Calls of `work` per second, over `seconds`.
double rate(const std::function<void()>& work, double seconds) {
  for (int i = 0; i < 100; ++i) work();  // warm up
  long calls = 0;
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration<double>(seconds);
  auto now = start;
  while (now < end) {
    for (int i = 0; i < 64; ++i) work();
    calls += 64;
    now = Clock::now();
  }
  return static_cast<double>(calls) / std::chrono::duration<double>(now - start).count();
}

// OpenVPN's receive path: the context keeps its cipher and key, each packet
// sets its nonce, AAD, payload, tag, final.
void open_tag_last(EVP_CIPHER_CTX* ctx, const Bytes& iv, const Bytes& aad, const Bytes& ct,
                   Bytes& tag, Bytes& out) {
  int n = 0;
  if (EVP_DecryptInit_ex2(ctx, nullptr, nullptr, iv.data(), nullptr) != 1 ||
      EVP_DecryptUpdate(ctx, nullptr, &n, aad.data(), static_cast<int>(aad.size())) != 1 ||
      EVP_DecryptUpdate(ctx, out.data(), &n, ct.data(), static_cast<int>(ct.size())) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag.data()) != 1 ||
      EVP_DecryptFinal_ex(ctx, out.data() + n, &n) != 1)
    fail("a decryption failed");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) fail("usage: aead_open_tag_last MODULE [--seconds S]");
  double seconds = 0.5;
  if (argc == 4 && std::strcmp(argv[2], "--seconds") == 0) seconds = std::atof(argv[3]);
  setenv("CRYPTOACCEL_DIRECT", "0", 1);
  OSSL_LIB_CTX* ours = OSSL_LIB_CTX_new();
  OSSL_LIB_CTX* theirs = OSSL_LIB_CTX_new();
  if (OSSL_PROVIDER_load(ours, argv[1]) == nullptr ||
      OSSL_PROVIDER_load(ours, "default") == nullptr ||
      OSSL_PROVIDER_load(theirs, "default") == nullptr)
    fail("cannot load the providers");
  std::printf("%-18s %6s %10s %10s %10s %8s %8s\n", "algorithm", "bytes", "openssl", "provider",
              "auth", "prov/ossl", "auth time");
  std::printf("%-18s %6s %10s %10s %10s %8s %8s\n", "", "", "MB/s", "MB/s", "MB/s", "", "");
  for (const char* name : {"AES-128-GCM", "AES-256-GCM", "ChaCha20-Poly1305"}) {
    EVP_CIPHER* mine = EVP_CIPHER_fetch(ours, name, "provider=cryptoaccel");
    EVP_CIPHER* ref = EVP_CIPHER_fetch(theirs, name, nullptr);
    if (mine == nullptr || ref == nullptr) fail("cannot fetch the ciphers");
    const bool gcm = std::strstr(name, "GCM") != nullptr;
    Bytes key(static_cast<std::size_t>(EVP_CIPHER_get_key_length(ref))), iv(12), aad(8), tag(16);
    RAND_bytes(key.data(), static_cast<int>(key.size()));
    RAND_bytes(iv.data(), static_cast<int>(iv.size()));
    EVP_MAC* mac = EVP_MAC_fetch(theirs, gcm ? "GMAC" : "POLY1305", nullptr);
    EVP_MAC_CTX* auth = EVP_MAC_CTX_new(mac);
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    for (std::size_t size : {64, 256, 1420, 16384}) {
      Bytes pt(size), ct(size), out(size);
      RAND_bytes(pt.data(), static_cast<int>(size));
      int n = 0;
      if (EVP_EncryptInit_ex2(ctx, ref, key.data(), iv.data(), nullptr) != 1 ||
          EVP_EncryptUpdate(ctx, nullptr, &n, aad.data(), 8) != 1 ||
          EVP_EncryptUpdate(ctx, ct.data(), &n, pt.data(), static_cast<int>(size)) != 1 ||
          EVP_EncryptFinal_ex(ctx, ct.data() + n, &n) != 1 ||
          EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) != 1)
        fail("sealing failed");
      if (EVP_DecryptInit_ex2(ctx, ref, key.data(), nullptr, nullptr) != 1) fail("no key");
      const double openssl = rate([&] { open_tag_last(ctx, iv, aad, ct, tag, out); }, seconds);
      if (EVP_DecryptInit_ex2(ctx, mine, key.data(), nullptr, nullptr) != 1) fail("no key");
      const double provider = rate([&] { open_tag_last(ctx, iv, aad, ct, tag, out); }, seconds);
      if (out != pt) fail("the provider's plaintext differs");
      std::string cipher_name = name;
      if (gcm) {
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, cipher_name.data(), 0),
            OSSL_PARAM_END};
        if (EVP_MAC_init(auth, key.data(), key.size(), params) != 1) fail("GMAC refused the key");
      }
      const double authenticator = rate(
          [&] {
            unsigned char result[16];
            std::size_t length = 0;
            // GMAC keyed once (as the provider keeps it per key), a nonce per
            // message; Poly1305 keyed per message (32 bytes of keystream:
            // the ChaCha20 key stands in).
            OSSL_PARAM params[] = {
                OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_IV, iv.data(), iv.size()),
                OSSL_PARAM_END};
            if ((gcm ? EVP_MAC_init(auth, nullptr, 0, params)
                     : EVP_MAC_init(auth, key.data(), key.size(), nullptr)) != 1 ||
                EVP_MAC_update(auth, aad.data(), aad.size()) != 1 ||
                EVP_MAC_update(auth, ct.data(), ct.size()) != 1 ||
                EVP_MAC_final(auth, result, &length, sizeof result) != 1)
              fail("the authenticator failed");
          },
          seconds);
      const double mb = static_cast<double>(size) / 1e6;
      std::printf("%-18s %6zu %10.1f %10.1f %10.1f %8.2f %8.2f\n", name, size, openssl * mb,
                  provider * mb, authenticator * mb, provider / openssl, openssl / authenticator);
    }
    EVP_CIPHER_CTX_free(ctx);
    EVP_MAC_CTX_free(auth);
    EVP_MAC_free(mac);
    EVP_CIPHER_free(mine);
    EVP_CIPHER_free(ref);
  }
  return 0;
}
