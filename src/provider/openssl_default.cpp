#include "openssl_default.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cstring>
#include <sstream>
#include <vector>

#include "cryptoaccel/error.hpp"
#include "function_tables.hpp"
#include "libcrypto_binding.hpp"

namespace cryptoaccel::provider {
namespace {

// Set when OPENSSL_cleanup() starts, before it frees the ENGINE subsystem.
// The provider's teardown comes later in the same cleanup, and this
// context's objects can hold an ENGINE: libcrypto 3.x binds a cipher
// context to any ENGINE registered for its cipher when it is set up, so a
// DRBG created here after an application registered one (OpenSSL's dasync
// does AES-256-CTR, what CTR-DRBG runs on) would call ENGINE_finish() on a
// freed lock while the context is freed. Once libcrypto is ending the
// context is kept to the process's end instead, reachable from
// `kept_at_exit` so that a leak checker does not report it.
std::atomic<bool> libcrypto_ending{false};
std::mutex kept_mutex;
std::vector<OSSL_LIB_CTX*>* kept_at_exit = nullptr;

void note_libcrypto_ending() {
  libcrypto_ending.store(true);
}

// Whether OpenSSL's `name` in `libctx`, keyed with zeros and inited to
// encrypt (or decrypt) under `iv` (null: none given), does `probe` (which
// returns 1 when it does). The probe's errors stay off the caller's queue.
template <typename Probe>
bool cipher_does(OSSL_LIB_CTX* libctx, const char* name, const unsigned char* iv, Probe probe,
                 int encrypt = 1) {
  static const unsigned char kKey[32] = {};
  EVP_CIPHER* cipher = EVP_CIPHER_fetch(libctx, name, nullptr);
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  ERR_set_mark();
  const bool does = cipher != nullptr && ctx != nullptr &&
                    EVP_CipherInit_ex2(ctx, cipher, kKey, iv, encrypt, nullptr) == 1 &&
                    probe(ctx) == 1;
  ERR_pop_to_mark();
  EVP_CIPHER_CTX_free(ctx);
  EVP_CIPHER_free(cipher);
  return does;
}

OpenSslDefault::Contract probe_contract(OSSL_LIB_CTX* libctx) {
  OpenSslDefault::Contract contract;
  contract.gcm_iv_made_when_read =
      cipher_does(libctx, "AES-128-GCM", nullptr, [](EVP_CIPHER_CTX* ctx) {
        unsigned char iv[12];
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_IV, iv, sizeof iv),
            OSSL_PARAM_construct_end()};
        return EVP_CIPHER_CTX_get_params(ctx, params);
      });
  static const unsigned char kNonce[12] = {};
  static const unsigned char kNonce16[16] = {};
  contract.chacha_poly_nonce_once =
      cipher_does(libctx, "ChaCha20-Poly1305", kNonce, [](EVP_CIPHER_CTX* ctx) {
        unsigned char in[1] = {}, out[16];
        int n = 0;
        const bool second_refused = EVP_CipherUpdate(ctx, out, &n, in, 1) == 1 &&
                                    EVP_CipherFinal_ex(ctx, out, &n) == 1 &&
                                    EVP_CipherUpdate(ctx, out, &n, in, 1) != 1;
        return second_refused ? 1 : 0;
      });
  contract.chacha_poly_aad_first =
      cipher_does(libctx, "ChaCha20-Poly1305", kNonce, [](EVP_CIPHER_CTX* ctx) {
        unsigned char in[1] = {}, out[1];
        int n = 0;
        const bool late_aad_refused = EVP_CipherUpdate(ctx, out, &n, in, 1) == 1 &&
                                      EVP_CipherUpdate(ctx, nullptr, &n, in, 1) != 1;
        return late_aad_refused ? 1 : 0;
      });
  contract.gcm_tag_not_set_raised = cipher_does(
      libctx, "AES-128-GCM", kNonce,
      [](EVP_CIPHER_CTX* ctx) {
        unsigned char out[16];
        int n = 0;
        // The caller's queue may hold errors already: only a new one counts.
        const unsigned long before = ERR_peek_last_error();
        return EVP_CipherFinal_ex(ctx, out, &n) != 1 && ERR_peek_last_error() != before ? 1 : 0;
      },
      /*encrypt=*/0);
  contract.repeated_param_refused =
      cipher_does(libctx, "AES-128-CBC", kNonce16, [](EVP_CIPHER_CTX* ctx) {
        unsigned int on = 1;
        const OSSL_PARAM twice[] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_PADDING, &on),
                                    OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_PADDING, &on),
                                    OSSL_PARAM_construct_end()};
        return EVP_CIPHER_CTX_set_params(ctx, twice) != 1 ? 1 : 0;
      });
  contract.num_below_block_size =
      cipher_does(libctx, "AES-128-CTR", kNonce16, [](EVP_CIPHER_CTX* ctx) {
        unsigned int num = 1;  // EVP_CIPHER_CTX_set_num's parameter
        const OSSL_PARAM params[] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_NUM, &num),
                                     OSSL_PARAM_construct_end()};
        return EVP_CIPHER_CTX_set_params(ctx, params) != 1 ? 1 : 0;
      });
  contract.chacha20_started_block_counted =
      cipher_does(libctx, "ChaCha20", kNonce16, [](EVP_CIPHER_CTX* ctx) {
        static const unsigned char kZeroKey[32] = {};
        unsigned char zeros[128] = {}, stream[128], after[64];
        int n = 0;
        const bool ran = EVP_CipherUpdate(ctx, stream, &n, zeros, 128) == 1 &&
                         EVP_CipherInit_ex2(ctx, nullptr, kZeroKey, kNonce16, 1, nullptr) == 1 &&
                         EVP_CipherUpdate(ctx, after, &n, zeros, 1) == 1 &&
                         EVP_CipherInit_ex2(ctx, nullptr, kZeroKey, nullptr, 1, nullptr) == 1 &&
                         EVP_CipherUpdate(ctx, after, &n, zeros, 64) == 1;
        return ran && std::memcmp(after, stream + 64, 64) == 0 ? 1 : 0;
      });
  contract.chacha_poly_empty_cipher_ends_message =
      cipher_does(libctx, "ChaCha20-Poly1305", kNonce, [](EVP_CIPHER_CTX* ctx) {
        // Ended, the next byte is the first of a message under the same
        // nonce again: the same ciphertext byte.
        unsigned char zero[1] = {}, first[1], second[1];
        const bool ran = EVP_Cipher(ctx, first, zero, 1) == 1 &&
                         EVP_Cipher(ctx, nullptr, nullptr, 0) >= 0 &&
                         EVP_Cipher(ctx, second, zero, 1) == 1;
        return ran && first[0] == second[0] ? 1 : 0;
      });
  contract.chacha_poly_final_waits_for_tag = cipher_does(
      libctx, "ChaCha20-Poly1305", kNonce,
      [](EVP_CIPHER_CTX* ctx) {
        // Going on, the second byte is the keystream's second, not its
        // first again.
        unsigned char zero[1] = {}, first[1], second[1], tail[16];
        int n = 0;
        const bool ran = EVP_CipherUpdate(ctx, first, &n, zero, 1) == 1 &&
                         EVP_CipherFinal_ex(ctx, tail, &n) != 1 &&
                         EVP_CipherUpdate(ctx, second, &n, zero, 1) == 1;
        return ran && first[0] != second[0] ? 1 : 0;
      },
      /*encrypt=*/0);
  return contract;
}

}  // namespace

OpenSslDefault::OpenSslDefault() : libctx_(OSSL_LIB_CTX_new()) {
  if (libctx_ == nullptr) throw DriverFailure("cryptoaccel provider: OSSL_LIB_CTX_new failed");
  // OpenSSL 3 runs these handlers first thing in OPENSSL_cleanup() (the
  // module is never unloaded: -z nodelete). OpenSSL 4 has neither the
  // function nor ENGINEs.
  using AtExit = int (*)(void (*)());
  if (auto at_exit = reinterpret_cast<AtExit>(optional_libcrypto_function("OPENSSL_atexit"));
      at_exit != nullptr && at_exit(note_libcrypto_ending) != 1) {
    OSSL_LIB_CTX_free(libctx_);
    throw DriverFailure("cryptoaccel provider: OPENSSL_atexit failed");
  }
  default_ = OSSL_PROVIDER_load(libctx_, "default");
  if (default_ == nullptr) {
    OSSL_LIB_CTX_free(libctx_);
    throw DriverFailure("cryptoaccel provider: OpenSSL's default provider did not load");
  }
  // Where it is installed, the legacy provider too: an RSA signature over
  // MDC2 or MD4 (which the default provider's RSA fetches here) works as
  // it does without cryptoaccel. Without it they fail as they would there.
  legacy_ = OSSL_PROVIDER_try_load(libctx_, "legacy", 1);
  ERR_clear_error();
  contract_ = probe_contract(libctx_);
}

OpenSslDefault::~OpenSslDefault() {
  for (auto& [name, cipher] : ciphers_) EVP_CIPHER_free(cipher);
  if (legacy_ != nullptr) OSSL_PROVIDER_unload(legacy_);
  if (libcrypto_ending.load()) {
    std::lock_guard lock(kept_mutex);
    if (kept_at_exit == nullptr) kept_at_exit = new std::vector<OSSL_LIB_CTX*>;
    kept_at_exit->push_back(libctx_);  // with its providers: see libcrypto_ending
    return;
  }
  OSSL_PROVIDER_unload(default_);
  OSSL_LIB_CTX_free(libctx_);
}

bool OpenSslDefault::random_bytes(std::uint8_t* out, std::size_t n, bool secret) noexcept {
  if (n == 0) return true;
  return (secret ? RAND_priv_bytes_ex(libctx_, out, n, 0) : RAND_bytes_ex(libctx_, out, n, 0)) == 1;
}
const OSSL_DISPATCH* OpenSslDefault::implementation(int operation,
                                                    std::string_view name) const noexcept {
  int no_cache = 0;
  const OSSL_ALGORITHM* found = OSSL_PROVIDER_query_operation(default_, operation, &no_cache);
  for (; found != nullptr && found->algorithm_names != nullptr; ++found)
    if (names_include(found->algorithm_names, name)) return found->implementation;
  return nullptr;
}

void* OpenSslDefault::default_provider_context() const noexcept {
  return OSSL_PROVIDER_get0_provider_ctx(default_);
}

const EVP_CIPHER* OpenSslDefault::cipher(const Algorithm& a) {
  std::lock_guard lock(mutex_);
  auto found = ciphers_.find(a.openssl_name);
  if (found != ciphers_.end()) return found->second;
  EVP_CIPHER* cipher =
      EVP_CIPHER_fetch(libctx_, std::string(a.openssl_name).c_str(), "provider=default");
  if (cipher == nullptr)
    throw Unsupported("OpenSSL's default provider has no " + std::string(a.openssl_name));
  ciphers_.emplace(std::string(a.openssl_name), cipher);
  return cipher;
}

void OpenSslDefault::count(const std::string& what, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  Usage& u = usage_[what];
  ++u.requests;
  u.bytes += bytes;
}

std::string OpenSslDefault::usage_text() const {
  std::lock_guard lock(mutex_);
  std::ostringstream out;
  for (const auto& [what, u] : usage_)
    out << "  " << what << " openssl-default requests=" << u.requests << " bytes=" << u.bytes
        << " failures=0\n";
  return out.str();
}

}  // namespace cryptoaccel::provider
