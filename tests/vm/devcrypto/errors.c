/* The answer of /dev/crypto to each edge of the ABI: one line per request,
 * "name result", the result being 0 or the errno's name. Run against
 * cryptodev-linux's module and against `cryptoaccel devcrypto`, the two
 * outputs are compared by tests/vm/devcrypto-errors, which allows exactly
 * the differences docs/devcrypto.md lists: the table there is checked
 * against the module itself, not against our reading of its source.
 *
 * Written to the ABI alone (cryptodev_abi.h plus the few ids and ioctls
 * below); needs the module built with ENABLE_ASYNC for the async lines.
 * Usage: devcrypto_errors [DEVICE] (default /dev/crypto). Exit 0 when every
 * request was made (whatever it answered), 1 when the device cannot be
 * opened. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cryptodev_abi.h"

#define CRYPTO_NULL 16
#define COP_FLAG_NO_ZC (1 << 3)
#define COP_FLAG_AEAD_TLS_TYPE (1 << 4)
#define COP_FLAG_AEAD_SRTP_TYPE (1 << 5)
#define CRIOGET _IOWR('c', 101, uint32_t)
#define CIOCASYMFEAT _IOR('c', 106, uint32_t)
#define CIOCASYNCCRYPT _IOW('c', 110, struct crypt_op)
#define CIOCASYNCFETCH _IOR('c', 111, struct crypt_op)
struct cphash_op {
  uint32_t dst_ses;
  uint32_t src_ses;
};
#define CIOCCPHASH _IOW('c', 112, struct cphash_op)

static int fd;

static const char *name_of(int error) {
  switch (error) {
    case 0: return "0";
    case EINVAL: return "EINVAL";
    case EFAULT: return "EFAULT";
    case ENOENT: return "ENOENT";
    case EBADMSG: return "EBADMSG";
    case EBUSY: return "EBUSY";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EMSGSIZE: return "EMSGSIZE";
    case ENOMEM: return "ENOMEM";
    case ENOSPC: return "ENOSPC";
    default: {
      static char other[32];
      snprintf(other, sizeof other, "errno%d", error);
      return other;
    }
  }
}

static int call(unsigned long request, void *arg) {
  return ioctl(fd, request, arg) == 0 ? 0 : errno;
}

static void report(const char *name, int result) {
  if (getenv("DEVCRYPTO_ERRORS_TRACE")) fprintf(stderr, "done %s\n", name);
  printf("%s %s\n", name, name_of(result));
  fflush(stdout);
}

static uint8_t key[64], mackey[64], iv[16], buf[8192], out[8192], tag[64], auth[8192];

static uint32_t session(uint32_t cipher, uint32_t keylen, uint32_t mac, uint32_t mackeylen) {
  struct session_op op = {.cipher = cipher, .mac = mac, .keylen = keylen, .key = key,
                          .mackeylen = mackeylen, .mackey = mackey};
  if (call(CIOCGSESSION, &op) != 0) return 0;
  return op.ses;
}

static int session_result(uint32_t cipher, uint32_t keylen, uint8_t *k, uint32_t mac,
                          uint32_t mackeylen, uint8_t *mk) {
  struct session_op op = {.cipher = cipher, .mac = mac, .keylen = keylen, .key = k,
                          .mackeylen = mackeylen, .mackey = mk};
  const int result = call(CIOCGSESSION, &op);
  if (result == 0) call(CIOCFSESSION, &op.ses);
  return result;
}

static int run_crypt(uint32_t ses, uint16_t op, uint16_t flags, uint32_t len, uint8_t *src,
                 uint8_t *dst, uint8_t *mac, uint8_t *civ) {
  struct crypt_op c = {.ses = ses, .op = op, .flags = flags, .len = len, .src = src, .dst = dst,
                       .mac = mac, .iv = civ};
  return call(CIOCCRYPT, &c);
}

static int run_authcrypt(uint32_t ses, uint16_t op, uint16_t flags, uint32_t len, uint32_t auth_len,
                     uint8_t *auth_src, uint8_t *src, uint8_t *dst, uint8_t *t, uint32_t tag_len,
                     uint8_t *civ) {
  struct crypt_auth_op a = {.ses = ses, .op = op, .flags = flags, .len = len,
                            .auth_len = auth_len, .auth_src = auth_src, .src = src, .dst = dst,
                            .tag = t, .tag_len = tag_len, .iv = civ, .iv_len = civ ? 12 : 0};
  return call(CIOCAUTHCRYPT, &a);
}

static void sessions(void) {
  report("session.unknown-cipher", session_result(999, 16, key, 0, 0, NULL));
  report("session.neither", session_result(0, 0, NULL, 0, 0, NULL));
  report("session.aes-key-17", session_result(CRYPTO_AES_CBC, 17, key, 0, 0, NULL));
  report("session.key-over-64", session_result(CRYPTO_AES_CBC, 65, key, 0, 0, NULL));
  report("session.null-key-with-length", session_result(CRYPTO_AES_CBC, 16, NULL, 0, 0, NULL));
  report("session.mackey-over-512", session_result(0, 0, NULL, CRYPTO_SHA1_HMAC, 513, mackey));
  report("session.gcm-and-mac", session_result(CRYPTO_AES_GCM, 16, key, CRYPTO_SHA1_HMAC, 0, NULL));
  report("session.gcm-and-mac-key",
         session_result(CRYPTO_AES_GCM, 16, key, CRYPTO_SHA1_HMAC, 20, mackey));
  report("session.null-cipher", session_result(CRYPTO_NULL, 0, key, 0, 0, NULL));
  report("session.cbc-and-hmac",
         session_result(CRYPTO_AES_CBC, 16, key, CRYPTO_SHA1_HMAC, 20, mackey));
  report("session.unknown-mac", session_result(0, 0, NULL, 999, 0, NULL));
}

static void crypts(void) {
  const uint32_t cbc = session(CRYPTO_AES_CBC, 16, 0, 0);
  const uint32_t sha = session(0, 0, CRYPTO_SHA1, 0);
  const uint32_t xts = session(CRYPTO_AES_XTS, 32, 0, 0);
  report("crypt.unknown-session", run_crypt(12345, COP_ENCRYPT, 0, 16, buf, out, NULL, iv));
  report("crypt.bad-op", run_crypt(cbc, 7, 0, 16, buf, out, NULL, iv));
  report("crypt.partial-block", run_crypt(cbc, COP_ENCRYPT, 0, 15, buf, out, NULL, iv));
  /* On the module these hang the caller in the kernel (aes-generic), or
   * fail and hang the next request (virtio-crypto): asked for only with
   * DEVCRYPTO_ERRORS_KERNEL_HANGS=1 (docs/devcrypto.md). */
  if (getenv("DEVCRYPTO_ERRORS_KERNEL_HANGS")) {
    report("crypt.null-src-with-length", run_crypt(cbc, COP_ENCRYPT, 0, 16, NULL, out, NULL, iv));
    report("crypt.hash-null-src-with-length",
           run_crypt(sha, COP_ENCRYPT, 0, 16, NULL, NULL, tag, NULL));
  }
  report("crypt.cbc-no-iv", run_crypt(cbc, COP_ENCRYPT, 0, 16, buf, out, NULL, NULL));
  report("crypt.empty", run_crypt(cbc, COP_ENCRYPT, 0, 0, NULL, NULL, NULL, iv));
  report("crypt.hash-null-mac", run_crypt(sha, COP_ENCRYPT, 0, 16, buf, NULL, NULL, NULL));
  report("crypt.hash-update-only", run_crypt(sha, COP_ENCRYPT, COP_FLAG_UPDATE, 16, buf, NULL, NULL, NULL));
  report("crypt.xts-20-bytes", run_crypt(xts, COP_ENCRYPT, 0, 20, buf, out, NULL, iv));
  report("crypt.xts-32-bytes", run_crypt(xts, COP_ENCRYPT, 0, 32, buf, out, NULL, iv));
  uint32_t unknown = 12345;
  report("fsession.unknown", call(CIOCFSESSION, &unknown));
  int dummy = 0;
  report("ioctl.unknown", call(_IOWR('c', 199, uint32_t), &dummy));
  uint32_t features = 0xffffffff;
  const int asym = call(CIOCASYMFEAT, &features);
  report("asymfeat", asym);
  report("asymfeat.value-zero", asym == 0 && features == 0 ? 0 : EINVAL);
  const uint32_t sha2 = session(0, 0, CRYPTO_SHA1, 0);
  struct cphash_op copy = {.dst_ses = sha2, .src_ses = sha};
  report("cphash", call(CIOCCPHASH, &copy));
  copy.src_ses = 12345;
  report("cphash.unknown-session", call(CIOCCPHASH, &copy));
  call(CIOCFSESSION, (void *)&cbc);
  call(CIOCFSESSION, (void *)&sha);
  call(CIOCFSESSION, (void *)&sha2);
  call(CIOCFSESSION, (void *)&xts);
}

static void authcrypts(void) {
  const uint32_t gcm = session(CRYPTO_AES_GCM, 16, 0, 0);
  const uint32_t tls = session(CRYPTO_AES_CBC, 16, CRYPTO_SHA1_HMAC, 20);
  const uint32_t srtp = session(CRYPTO_AES_CTR, 16, CRYPTO_SHA1_HMAC, 20);
  const uint32_t hash = session(0, 0, CRYPTO_SHA1_HMAC, 20);
  report("auth.unknown-session", run_authcrypt(12345, COP_ENCRYPT, 0, 16, 0, NULL, buf, out, NULL, 0, iv));
  report("auth.bad-op", run_authcrypt(gcm, 7, 0, 16, 0, NULL, buf, out, NULL, 0, iv));
  report("auth.gcm-seal", run_authcrypt(gcm, COP_ENCRYPT, 0, 16, 8, auth, buf, out, NULL, 0, iv));
  report("auth.gcm-tag-17", run_authcrypt(gcm, COP_ENCRYPT, 0, 16, 0, NULL, buf, out, NULL, 17, iv));
  report("auth.gcm-open-shorter-than-tag",
         run_authcrypt(gcm, COP_DECRYPT, 0, 8, 0, NULL, buf, out, NULL, 0, iv));
  memset(out, 0, 64);
  report("auth.gcm-open-forged", run_authcrypt(gcm, COP_DECRYPT, 0, 32, 0, NULL, out, buf, NULL, 0, iv));
  report("auth.gcm-no-iv", run_authcrypt(gcm, COP_ENCRYPT, 0, 16, 0, NULL, buf, out, NULL, 0, NULL));
  report("auth.gcm-aad-over-a-page",
         run_authcrypt(gcm, COP_ENCRYPT, 0, 16, 5000, auth, buf, out, NULL, 0, iv));
  report("auth.hash-only-session", run_authcrypt(hash, COP_ENCRYPT, 0, 16, 0, NULL, buf, out, NULL, 0, iv));
  report("auth.tls-seal",
         run_authcrypt(tls, COP_ENCRYPT, COP_FLAG_AEAD_TLS_TYPE, 37, 13, auth, buf, buf, NULL, 0, iv));
  report("auth.tls-not-in-place",
         run_authcrypt(tls, COP_ENCRYPT, COP_FLAG_AEAD_TLS_TYPE, 37, 13, auth, buf, out, NULL, 0, iv));
  memset(buf, 0x5a, 64);
  report("auth.tls-open-forged",
         run_authcrypt(tls, COP_DECRYPT, COP_FLAG_AEAD_TLS_TYPE, 64, 13, auth, buf, buf, NULL, 0, iv));
  report("auth.tls-open-partial-block",
         run_authcrypt(tls, COP_DECRYPT, COP_FLAG_AEAD_TLS_TYPE, 60, 13, auth, buf, buf, NULL, 0, iv));
  report("auth.srtp-seal", run_authcrypt(srtp, COP_ENCRYPT, COP_FLAG_AEAD_SRTP_TYPE, 100, 112, auth,
                                     auth + 12, auth + 12, tag, 10, iv));
  tag[0] ^= 1;
  report("auth.srtp-open-forged", run_authcrypt(srtp, COP_DECRYPT, COP_FLAG_AEAD_SRTP_TYPE, 100, 112,
                                            auth, auth + 12, auth + 12, tag, 10, iv));
  report("auth.srtp-block-cipher", run_authcrypt(tls, COP_ENCRYPT, COP_FLAG_AEAD_SRTP_TYPE, 100, 112,
                                             auth, auth + 12, auth + 12, tag, 10, iv));
  report("auth.srtp-src-far-into-auth", run_authcrypt(srtp, COP_ENCRYPT, COP_FLAG_AEAD_SRTP_TYPE, 100,
                                                  1000, auth, auth + 300, auth + 300, tag, 10, iv));
  report("auth.srtp-no-auth-len", run_authcrypt(srtp, COP_ENCRYPT, COP_FLAG_AEAD_SRTP_TYPE, 100, 0,
                                            auth, auth, auth, tag, 10, iv));
  call(CIOCFSESSION, (void *)&gcm);
  call(CIOCFSESSION, (void *)&tls);
  call(CIOCFSESSION, (void *)&srtp);
  call(CIOCFSESSION, (void *)&hash);
}

static void asyncs(void) {
  const uint32_t cbc = session(CRYPTO_AES_CBC, 16, 0, 0);
  struct crypt_op c = {.ses = cbc, .op = COP_ENCRYPT, .len = 16, .src = buf, .dst = out, .iv = iv};
  report("async.fetch-none", call(CIOCASYNCFETCH, &c));
  struct crypt_op unknown = c;
  unknown.ses = 12345;
  report("async.unknown-session", call(CIOCASYNCCRYPT, &unknown));
  struct crypt_op no_zc = c;
  no_zc.flags = COP_FLAG_NO_ZC;
  report("async.no-zero-copy", call(CIOCASYNCCRYPT, &no_zc));
  struct crypt_op partial = c;
  partial.len = 15;
  report("async.partial-block-submit", call(CIOCASYNCCRYPT, &partial));
  nanosleep(&(struct timespec){0, 100000000}, NULL);  /* the module's workqueue */
  struct crypt_op fetched;
  report("async.partial-block-fetch", call(CIOCASYNCFETCH, &fetched));
  report("async.submit", call(CIOCASYNCCRYPT, &c));
  nanosleep(&(struct timespec){0, 100000000}, NULL);
  report("async.fetch", call(CIOCASYNCFETCH, &fetched));
  call(CIOCFSESSION, (void *)&cbc);
}

/* Requests beyond one round of a CUSE ioctl (32 pages each way), which the
 * server serves through the caller's memory, up to its bound of 1 MiB. */
static void large(void) {
  const size_t mib = 1u << 20, big = 256 * 1024;
  uint8_t *in = mmap(NULL, mib + 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  uint8_t *to = mmap(NULL, mib + 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (in == MAP_FAILED || to == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  const uint32_t cbc = session(CRYPTO_AES_CBC, 16, 0, 0);
  const uint32_t gcm = session(CRYPTO_AES_GCM, 16, 0, 0);
  report("large.crypt-256-KiB", run_crypt(cbc, COP_ENCRYPT, 0, big, in, to, NULL, iv));
  report("large.crypt-1-MiB", run_crypt(cbc, COP_ENCRYPT, 0, mib, in, to, NULL, iv));
  report("large.crypt-over-1-MiB", run_crypt(cbc, COP_ENCRYPT, 0, mib + 16, in, to, NULL, iv));
  report("large.gcm-256-KiB", run_authcrypt(gcm, COP_ENCRYPT, 0, big, 16, auth, in, to, NULL, 0, iv));
  struct crypt_op c = {.ses = cbc, .op = COP_ENCRYPT, .len = big, .src = in, .dst = to, .iv = iv};
  report("large.async-256-KiB-submit", call(CIOCASYNCCRYPT, &c));
  nanosleep(&(struct timespec){0, 100000000}, NULL);  /* the module's workqueue */
  struct crypt_op fetched;
  report("large.async-256-KiB-fetch", call(CIOCASYNCFETCH, &fetched));
  /* A large request with a read-only dst or a half-unmapped src makes the
   * module corrupt the caller's page tables ("BUG: Bad page map", then a
   * kernel panic): asked only with DEVCRYPTO_ERRORS_MODULE_BUGS=1, and
   * faults.c asks the server alone. */
  if (getenv("DEVCRYPTO_ERRORS_MODULE_BUGS")) {
    mprotect(to, mib + 16, PROT_READ);
    report("large.crypt-dst-read-only", run_crypt(cbc, COP_ENCRYPT, 0, big, in, to, NULL, iv));
    munmap(in + big / 2, big / 2);
    report("large.crypt-src-half-unmapped", run_crypt(cbc, COP_ENCRYPT, 0, big, in, in, NULL, iv));
  }
  call(CIOCFSESSION, (void *)&cbc);
  call(CIOCFSESSION, (void *)&gcm);
  munmap(in, mib + 16);
  munmap(to, mib + 16);
}

static void crioget(void) {
  uint32_t clone = 0;
  const int result = call(CRIOGET, &clone);
  report("crioget", result);
  if (result != 0) return;
  /* The clone is the same open file: a session made through it is ours too. */
  uint32_t ses = 0;
  {
    struct session_op op = {.cipher = CRYPTO_AES_CBC, .keylen = 16, .key = key};
    report("crioget.session-on-clone", ioctl((int)clone, CIOCGSESSION, &op) == 0 ? 0 : errno);
    ses = op.ses;
  }
  report("crioget.session-seen-on-original", run_crypt(ses, COP_ENCRYPT, 0, 16, buf, out, NULL, iv));
  report("crioget.close-clone", close((int)clone) == 0 ? 0 : errno);
  report("crioget.original-still-open", run_crypt(ses, COP_ENCRYPT, 0, 16, buf, out, NULL, iv));
}

int main(int argc, char **argv) {
  const char *device = argc > 1 ? argv[1] : "/dev/crypto";
  fd = open(device, O_RDWR);
  if (fd < 0) {
    perror(device);
    return 1;
  }
  for (size_t i = 0; i < sizeof key; i++) key[i] = (uint8_t)i, mackey[i] = (uint8_t)(i * 3);
  sessions();
  crypts();
  authcrypts();
  asyncs();
  large();
  crioget();
  close(fd);
  return 0;
}
