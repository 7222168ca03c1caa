// A pre-forking server's use of a private key, as nginx and Apache make it:
// the master loads the key (OSSL_STORE for a URI such as
// cryptoaccel-keyring:FILE, else PEM_read_PrivateKey as they read a key
// file), signs once, forks WORKERS workers that each sign and verify a
// message of their own and free the key (their exit), then signs again.
// Run with an OPENSSL_CONF that makes cryptoaccel serve the key from the
// kernel keyring (tests/vm/keyring-family).
//
//   keyring_fork_sign KEY WORKERS
//
// Exit 0 when every signature was made and verifies; 1 otherwise, saying
// which process failed and OpenSSL's errors.
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/store.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

EVP_PKEY* load(const std::string& name) {
  if (name.find(':') == std::string::npos) {
    std::FILE* file = std::fopen(name.c_str(), "r");
    if (file == nullptr) return nullptr;
    EVP_PKEY* key = PEM_read_PrivateKey(file, nullptr, nullptr, nullptr);
    std::fclose(file);
    return key;
  }
  OSSL_STORE_CTX* store = OSSL_STORE_open(name.c_str(), nullptr, nullptr, nullptr, nullptr);
  if (store == nullptr) return nullptr;
  EVP_PKEY* key = nullptr;
  while (key == nullptr && OSSL_STORE_eof(store) == 0) {
    OSSL_STORE_INFO* info = OSSL_STORE_load(store);
    if (info == nullptr) break;
    if (OSSL_STORE_INFO_get_type(info) == OSSL_STORE_INFO_PKEY)
      key = OSSL_STORE_INFO_get1_PKEY(info);
    OSSL_STORE_INFO_free(info);
  }
  OSSL_STORE_close(store);
  return key;
}

// Signs `message` with SHA-256 and PKCS#1 v1.5 and verifies it.
bool sign_and_verify(EVP_PKEY* key, const std::string& message, const char* who) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  unsigned char signature[1024];
  std::size_t length = sizeof signature;
  bool ok = ctx != nullptr && EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, key) == 1 &&
            EVP_DigestSign(ctx, signature, &length,
                           reinterpret_cast<const unsigned char*>(message.data()),
                           message.size()) == 1;
  if (ok) {
    EVP_MD_CTX_reset(ctx);
    ok = EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, key) == 1 &&
         EVP_DigestVerify(ctx, signature, length,
                          reinterpret_cast<const unsigned char*>(message.data()),
                          message.size()) == 1;
  }
  EVP_MD_CTX_free(ctx);
  if (!ok) {
    std::fprintf(stderr, "keyring_fork_sign: %s (pid %d) could not sign and verify:\n", who,
                 static_cast<int>(getpid()));
    ERR_print_errors_fp(stderr);
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: keyring_fork_sign KEY WORKERS\n");
    return 2;
  }
  const int workers = std::atoi(argv[2]);
  EVP_PKEY* key = load(argv[1]);
  if (key == nullptr) {
    std::fprintf(stderr, "keyring_fork_sign: cannot load %s:\n", argv[1]);
    ERR_print_errors_fp(stderr);
    return 1;
  }
  if (!sign_and_verify(key, "the master", "the master")) return 1;
  std::fflush(nullptr);
  for (int w = 0; w < workers; ++w) {
    const pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
      const bool ok = sign_and_verify(key, "worker " + std::to_string(w), "a worker");
      EVP_PKEY_free(key);  // as a worker's exit frees its configuration
      std::exit(ok ? 0 : 1);
    }
  }
  int failed = 0;
  for (int w = 0; w < workers; ++w) {
    int status = 0;
    if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  }
  const bool again = sign_and_verify(key, "the master, afterwards", "the master afterwards");
  EVP_PKEY_free(key);
  if (failed > 0 || !again) {
    std::fprintf(stderr, "keyring_fork_sign: %d of %d workers failed%s\n", failed, workers,
                 again ? "" : "; the master could not sign after them");
    return 1;
  }
  std::printf("keyring_fork_sign: %s: the master and %d workers signed\n", argv[1], workers);
  return 0;
}
