/* The devcrypto server under abuse, written to the cryptodev-linux ABI alone
 * (cryptodev_abi.h): bad ioctls, each answered with cryptodev-linux's errno;
 * several clients at once; a client killed in the middle of its requests;
 * the per-client session bound and its release when the file is closed.
 * After each, the server must still serve everyone. Usage: faults [DEVICE] */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cryptodev_abi.h"

static const char *device;
static unsigned char key[16] = {0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
                                0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c};

static int open_device(void) {
  int fd = open(device, O_RDWR);
  if (fd < 0) {
    perror(device);
    exit(2);
  }
  return fd;
}

static int new_session(int fd, uint32_t *ses) {
  struct session_op s = {.cipher = CRYPTO_AES_CBC, .keylen = 16};
  s.key = key;
  int rc = ioctl(fd, CIOCGSESSION, &s);
  *ses = s.ses;
  return rc < 0 ? -errno : 0;
}

/* One CBC encrypt-decrypt round trip of `len` bytes; 0 when it comes back. */
static int round_trip(int fd, uint32_t ses, size_t len) {
  unsigned char iv[16] = {1}, *in = malloc(len), *mid = malloc(len), *out = malloc(len);
  for (size_t i = 0; i < len; i++) in[i] = (unsigned char)(i * 31 + ses);
  struct crypt_op c = {.ses = ses, .op = COP_ENCRYPT, .len = (uint32_t)len};
  c.src = in, c.dst = mid, c.iv = iv;
  int ok = ioctl(fd, CIOCCRYPT, &c) == 0;
  c.op = COP_DECRYPT, c.src = mid, c.dst = out;
  ok = ok && ioctl(fd, CIOCCRYPT, &c) == 0 && memcmp(in, out, len) == 0 && memcmp(in, mid, len) != 0;
  free(in), free(mid), free(out);
  return ok ? 0 : -1;
}

static void still_serving(const char *after) {
  int fd = open_device();
  uint32_t ses;
  CHECK(new_session(fd, &ses) == 0 && round_trip(fd, ses, 64) == 0,
        "the server no longer serves after %s", after);
  close(fd);
}

static void bad_ioctls(void) {
  int fd = open_device();
  unsigned char buf[64] = {0}, iv[16] = {0};
  struct session_op unknown = {.cipher = 9999};
  CHECK(ioctl(fd, CIOCGSESSION, &unknown) < 0 && errno == EINVAL, "unknown algorithm: %s",
        strerror(errno));
  struct session_op bad_key = {.cipher = CRYPTO_AES_CBC, .keylen = 17};
  bad_key.key = buf;
  CHECK(ioctl(fd, CIOCGSESSION, &bad_key) < 0 && errno == EINVAL, "wrong key length: %s",
        strerror(errno));
  struct crypt_op no_session = {.ses = 0x7777, .op = COP_ENCRYPT, .len = 16};
  no_session.src = no_session.dst = buf;
  no_session.iv = iv;
  CHECK(ioctl(fd, CIOCCRYPT, &no_session) < 0 && errno == EINVAL, "unknown session: %s",
        strerror(errno));
  int dummy = 0;
  CHECK(ioctl(fd, _IOWR('c', 199, int), &dummy) < 0 && errno == EINVAL, "unknown ioctl: %s",
        strerror(errno));

  /* len beyond the buffer: the copy runs into an inaccessible page. */
  uint32_t ses;
  CHECK(new_session(fd, &ses) == 0, "session: %s", strerror(errno));
  long page = sysconf(_SC_PAGESIZE);
  unsigned char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  mprotect(map + page, page, PROT_NONE);
  struct crypt_op beyond = {.ses = ses, .op = COP_ENCRYPT, .len = 4096};
  beyond.src = beyond.dst = map + page - 64;
  beyond.iv = iv;
  CHECK(ioctl(fd, CIOCCRYPT, &beyond) < 0 && errno == EFAULT, "len beyond the buffer: %s",
        strerror(errno));
  struct crypt_op null_src = {.ses = ses, .op = COP_ENCRYPT, .len = 16};
  /* EINVAL, not EFAULT: what the module answers (through virtio-crypto;
   * docs/devcrypto.md, "Where it differs") for a null buffer with a length. */
  CHECK(ioctl(fd, CIOCCRYPT, &null_src) < 0 && errno == EINVAL, "null src: %s", strerror(errno));
  CHECK(round_trip(fd, ses, 48) == 0, "the faulting client's session still works");
  munmap(map, 2 * page);
  close(fd);
  printf("ok bad ioctls: EINVAL, EINVAL, EINVAL, EINVAL, EFAULT, EINVAL\n");
  still_serving("bad ioctls");
}

/* Requests beyond one CUSE round, which the server serves through the
 * caller's memory, with bad buffers: EFAULT, as the kernel's copy gives.
 * (The module mishandles these: it corrupts the caller's page tables.) */
static void bad_large_buffers(void) {
  const size_t big = 256 * 1024;
  int fd = open_device();
  uint32_t ses;
  CHECK(new_session(fd, &ses) == 0, "session: %s", strerror(errno));
  unsigned char iv[16] = {0};
  unsigned char *in = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  unsigned char *to = mmap(NULL, big, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  struct crypt_op c = {.ses = ses, .op = COP_ENCRYPT, .len = (uint32_t)big};
  c.src = in, c.dst = to, c.iv = iv;
  CHECK(ioctl(fd, CIOCCRYPT, &c) < 0 && errno == EFAULT, "256 KiB to a read-only dst: %s",
        strerror(errno));
  munmap(in + big / 2, big / 2);
  c.dst = in;
  CHECK(ioctl(fd, CIOCCRYPT, &c) < 0 && errno == EFAULT, "256 KiB from a half-unmapped src: %s",
        strerror(errno));
  CHECK(round_trip(fd, ses, 200 * 1024) == 0, "a 200 KiB round trip on the same session");
  munmap(in, big / 2);
  munmap(to, big);
  close(fd);
  printf("ok bad buffers beyond a CUSE round: EFAULT, EFAULT\n");
  still_serving("bad buffers beyond a round");
}

static void concurrent_clients(int clients, int rounds) {
  pid_t pids[16];
  for (int c = 0; c < clients; c++) {
    pids[c] = fork();
    if (pids[c] == 0) {
      int fd = open_device();
      uint32_t ses;
      if (new_session(fd, &ses) != 0) _exit(1);
      for (int r = 0; r < rounds; r++)
        if (round_trip(fd, ses, 16 + 16 * (size_t)((r + c) % 64)) != 0) _exit(1);
      _exit(0);
    }
  }
  int ok = 0;
  for (int c = 0; c < clients; c++) {
    int status;
    waitpid(pids[c], &status, 0);
    ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  CHECK(ok == clients, "%d of %d concurrent clients got every answer right", ok, clients);
  printf("ok %d concurrent clients x %d round trips\n", clients, rounds);
}

static void killed_client(void) {
  int ready[2];
  if (pipe(ready) != 0) exit(2);
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open_device();
    uint32_t ses;
    for (int i = 0; i < 8; i++) new_session(fd, &ses);
    if (write(ready[1], "x", 1) != 1) _exit(1);
    for (;;) round_trip(fd, ses, 32768);
  }
  char x;
  CHECK(read(ready[0], &x, 1) == 1, "the client did not start");
  struct timespec pause = {0, 150 * 1000 * 1000};
  nanosleep(&pause, NULL);
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status), "the client was not killed");
  printf("ok a client killed mid-request (SIGKILL)\n");
  still_serving("a client was killed");
}

static void session_bound(void) {
  int fd = open_device();
  uint32_t ses;
  int made = 0, rc = 0;
  while (made < 100000 && (rc = new_session(fd, &ses)) == 0) made++;
  CHECK(rc == -ENOSPC && made > 0 && made < 100000, "session bound: %d sessions, then %s", made,
        strerror(-rc));
  close(fd);
  /* Closing the file freed them: a new client gets as many again. */
  fd = open_device();
  int again = 0;
  while (again < made && new_session(fd, &ses) == 0) again++;
  CHECK(again == made, "after close: %d of %d sessions", again, made);
  close(fd);
  printf("ok %d sessions per client, freed when the file closes\n", made);
}

int main(int argc, char **argv) {
  device = argc > 1 ? argv[1] : "/dev/crypto";
  signal(SIGPIPE, SIG_IGN);
  bad_ioctls();
  bad_large_buffers();
  concurrent_clients(6, 25);
  killed_client();
  session_bound();
  still_serving("all of the above");
  return finish("faults");
}
