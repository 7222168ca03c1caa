/* Cipher, hash, HMAC and GCM round trips through /dev/crypto with known
 * answers, written to the cryptodev-linux ABI alone (cryptodev_abi.h), in
 * the manner of cryptodev-linux's tests/ programs. Usage: known_answers [DEVICE] */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "check.h"
#include "cryptodev_abi.h"

static int fd;

static uint32_t open_session(uint32_t cipher, uint32_t mac, const char *key_hex) {
  size_t keylen = 0;
  unsigned char *key = key_hex ? unhex(key_hex, &keylen) : NULL;
  struct session_op sess = {0};
  sess.cipher = cipher;
  sess.mac = mac;
  if (cipher) {
    sess.key = key;
    sess.keylen = (uint32_t)keylen;
  } else {
    sess.mackey = key;
    sess.mackeylen = (uint32_t)keylen;
  }
  int rc = ioctl(fd, CIOCGSESSION, &sess);
  CHECK(rc == 0, "CIOCGSESSION cipher %u mac %u: %s", cipher, mac, strerror(errno));
  free(key);
  return sess.ses;
}

static void close_session(uint32_t ses) {
  CHECK(ioctl(fd, CIOCFSESSION, &ses) == 0, "CIOCFSESSION: %s", strerror(errno));
}

static void cipher_round_trip(const char *name, uint32_t cipher, const char *key, const char *iv_hex,
                              const char *plain_hex, const char *cipher_hex) {
  uint32_t ses = open_session(cipher, 0, key);
  size_t n, m, ivlen;
  unsigned char *plain = unhex(plain_hex, &n), *expected = unhex(cipher_hex, &m);
  unsigned char *iv = iv_hex ? unhex(iv_hex, &ivlen) : NULL;
  unsigned char *out = calloc(1, n), *back = calloc(1, n);
  struct crypt_op cop = {.ses = ses, .op = COP_ENCRYPT, .len = (uint32_t)n};
  cop.src = plain;
  cop.dst = out;
  cop.iv = iv;
  CHECK(ioctl(fd, CIOCCRYPT, &cop) == 0, "%s encrypt: %s", name, strerror(errno));
  CHECK(m == n && memcmp(out, expected, n) == 0, "%s: wrong ciphertext", name);
  cop.op = COP_DECRYPT;
  cop.src = out;
  cop.dst = back;
  CHECK(ioctl(fd, CIOCCRYPT, &cop) == 0, "%s decrypt: %s", name, strerror(errno));
  CHECK(memcmp(back, plain, n) == 0, "%s: decryption is not the plaintext", name);
  printf("ok %s\n", name);
  close_session(ses);
  free(plain), free(expected), free(iv), free(out), free(back);
}

/* The message in two pieces, COP_FLAG_UPDATE then COP_FLAG_FINAL; `first`
 * is added to the first request (COP_FLAG_RESET, or 0 on a fresh session). */
static void hash_in_pieces(uint32_t ses, const char *message, uint16_t first,
                           unsigned char digest[64]) {
  size_t len = strlen(message), half = len / 2;
  struct crypt_op part = {.ses = ses, .op = COP_ENCRYPT, .flags = COP_FLAG_UPDATE | first};
  part.src = (uint8_t *)message;
  part.len = (uint32_t)half;
  /* An UPDATE without data finishes the hash in cryptodev-linux: with no
   * first half, the final request carries `first` itself. */
  if (half) {
    CHECK(ioctl(fd, CIOCCRYPT, &part) == 0, "update: %s", strerror(errno));
    first = 0;
  }
  part.flags = COP_FLAG_FINAL | first;
  part.src = (uint8_t *)message + half;
  part.len = (uint32_t)(len - half);
  part.mac = digest;
  CHECK(ioctl(fd, CIOCCRYPT, &part) == 0, "final: %s", strerror(errno));
}

static void hash_known_answer(const char *name, uint32_t mac, const char *key, const char *message,
                              const char *digest_hex) {
  uint32_t ses = open_session(0, mac, key);
  size_t dlen;
  unsigned char *expected = unhex(digest_hex, &dlen);
  unsigned char digest[64] = {0};
  struct crypt_op cop = {.ses = ses, .op = COP_ENCRYPT, .len = (uint32_t)strlen(message)};
  cop.src = (uint8_t *)message;
  cop.mac = digest;
  CHECK(ioctl(fd, CIOCCRYPT, &cop) == 0, "%s: %s", name, strerror(errno));
  CHECK(memcmp(digest, expected, dlen) == 0, "%s: wrong digest", name);
  /* The same message in pieces on the same session. A request with flags 0
   * starts a new hash, but what an UPDATE after a final continues from is
   * not specified by the ABI: cryptodev-linux, its reference, continues from
   * the state the final left (wiped), not from a new hash. COP_FLAG_RESET on
   * the first piece is how the ABI starts a new one. */
  memset(digest, 0, sizeof digest);
  hash_in_pieces(ses, message, COP_FLAG_RESET, digest);
  CHECK(memcmp(digest, expected, dlen) == 0, "%s: streamed digest (after RESET) differs", name);
  close_session(ses);
  /* And on a fresh session, where the first UPDATE starts the hash. */
  ses = open_session(0, mac, key);
  memset(digest, 0, sizeof digest);
  hash_in_pieces(ses, message, 0, digest);
  CHECK(memcmp(digest, expected, dlen) == 0, "%s: streamed digest (fresh session) differs", name);
  printf("ok %s\n", name);
  close_session(ses);
  free(expected);
}

static void gcm_known_answer(void) {
  /* Test case 4 of the GCM specification (AES-128, 60-byte text, 20-byte AAD). */
  size_t n, a, e, t, ivlen;
  uint32_t ses = open_session(CRYPTO_AES_GCM, 0, "feffe9928665731c6d6a8f9467308308");
  unsigned char *iv = unhex("cafebabefacedbaddecaf888", &ivlen);
  unsigned char *plain = unhex(
      "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e24"
      "49a6b525b16aedf5aa0de657ba637b39",
      &n);
  unsigned char *aad = unhex("feedfacedeadbeeffeedfacedeadbeefabaddad2", &a);
  unsigned char *expected = unhex(
      "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5a"
      "ac84aa051ba30b396a0aac973d58e091",
      &e);
  unsigned char *tag = unhex("5bc94fbc3221a5db94fae95ae7121a47", &t);
  unsigned char *sealed = calloc(1, n + 16), *opened = calloc(1, n);
  struct crypt_auth_op cao = {.ses = ses, .op = COP_ENCRYPT, .len = (uint32_t)n};
  cao.auth_src = aad;
  cao.auth_len = (uint32_t)a;
  cao.src = plain;
  cao.dst = sealed;
  cao.iv = iv;
  cao.iv_len = 12;
  cao.tag_len = 16;
  CHECK(ioctl(fd, CIOCAUTHCRYPT, &cao) == 0, "gcm seal: %s", strerror(errno));
  CHECK(memcmp(sealed, expected, n) == 0 && memcmp(sealed + n, tag, 16) == 0, "gcm: wrong output");
  CHECK(cao.len == n + 16, "gcm seal: len %u, expected %zu", cao.len, n + 16);
  struct crypt_auth_op open = {.ses = ses, .op = COP_DECRYPT, .len = (uint32_t)(n + 16)};
  open.auth_src = aad;
  open.auth_len = (uint32_t)a;
  open.src = sealed;
  open.dst = opened;
  open.iv = iv;
  open.iv_len = 12;
  open.tag_len = 16;
  CHECK(ioctl(fd, CIOCAUTHCRYPT, &open) == 0, "gcm open: %s", strerror(errno));
  CHECK(memcmp(opened, plain, n) == 0 && open.len == n, "gcm open: wrong plaintext");
  sealed[n] ^= 0x80;
  open.len = (uint32_t)(n + 16);
  CHECK(ioctl(fd, CIOCAUTHCRYPT, &open) < 0 && errno == EBADMSG, "gcm forgery: want EBADMSG");
  printf("ok aes-128-gcm\n");
  close_session(ses);
  free(iv), free(plain), free(aad), free(expected), free(tag), free(sealed), free(opened);
}

static void session_info(void) {
  uint32_t ses = open_session(CRYPTO_AES_CBC, 0, "000102030405060708090a0b0c0d0e0f");
  struct session_info_op info = {.ses = ses};
  CHECK(ioctl(fd, CIOCGSESSINFO, &info) == 0, "CIOCGSESSINFO: %s", strerror(errno));
  CHECK(strcmp(info.cipher_info.cra_name, "cbc(aes)") == 0, "cra_name '%s'",
        info.cipher_info.cra_name);
  printf("ok CIOCGSESSINFO: cbc(aes) served by '%s'%s\n", info.cipher_info.cra_driver_name,
         info.flags & SIOP_FLAG_KERNEL_DRIVER_ONLY ? " (hardware)" : "");
  close_session(ses);
}

int main(int argc, char **argv) {
  const char *device = argc > 1 ? argv[1] : "/dev/crypto";
  fd = open(device, O_RDWR);
  if (fd < 0) {
    perror(device);
    return 1;
  }
  /* SP 800-38A F.2.1, F.5.1, F.1.1; FIPS 180 "abc"; RFC 4231 case 2; RFC 2202 case 2. */
  cipher_round_trip("aes-128-cbc", CRYPTO_AES_CBC, "2b7e151628aed2a6abf7158809cf4f3c",
                    "000102030405060708090a0b0c0d0e0f", "6bc1bee22e409f96e93d7e117393172a",
                    "7649abac8119b246cee98e9b12e9197d");
  cipher_round_trip("aes-128-ctr", CRYPTO_AES_CTR, "2b7e151628aed2a6abf7158809cf4f3c",
                    "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", "6bc1bee22e409f96e93d7e117393172a",
                    "874d6191b620e3261bef6864990db6ce");
  cipher_round_trip("aes-128-ecb", CRYPTO_AES_ECB, "2b7e151628aed2a6abf7158809cf4f3c", NULL,
                    "6bc1bee22e409f96e93d7e117393172a", "3ad77bb40d7a3660a89ecaf32466ef97");
  hash_known_answer("sha256", CRYPTO_SHA2_256, NULL, "abc",
                    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  hash_known_answer("sha1", CRYPTO_SHA1, NULL, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d");
  hash_known_answer("md5", CRYPTO_MD5, NULL, "abc", "900150983cd24fb0d6963f7d28e17f72");
  hash_known_answer("hmac-sha256", CRYPTO_SHA2_256_HMAC, "4a656665", "what do ya want for nothing?",
                    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  hash_known_answer("hmac-sha1", CRYPTO_SHA1_HMAC, "4a656665", "what do ya want for nothing?",
                    "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
  gcm_known_answer();
  session_info();
  close(fd);
  return finish("known_answers");
}
