/* The devcrypto server's server-wide bounds, as an unprivileged user
 * (issue 15, item 6): it drops to nobody, opens the device until open fails,
 * makes sessions on every file until CIOCGSESSION fails, and checks that the
 * bounds answer ENOMEM (cryptodev-linux's answer when it cannot allocate),
 * that the server serves on at the bound, and that the server's resident
 * memory comes back down once the files are closed.
 *
 *   limits DEVICE SERVER_PID MAX_OPEN_FILES MAX_SESSIONS_TOTAL PER_FILE */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cryptodev_abi.h"

static const char* device;
static unsigned char key[16] = {0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
                                0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c};

static int new_session(int fd, uint32_t* ses) {
  struct session_op s = {.cipher = CRYPTO_AES_CBC, .keylen = 16};
  s.key = key;
  int rc = ioctl(fd, CIOCGSESSION, &s);
  *ses = s.ses;
  return rc < 0 ? -errno : 0;
}

/* One CBC encryption of 64 bytes in place: 0 or -errno. */
static int encrypt(int fd, uint32_t ses) {
  unsigned char iv[16] = {1}, data[64] = {2};
  struct crypt_op c = {.ses = ses, .op = COP_ENCRYPT, .len = sizeof data};
  c.src = data, c.dst = data, c.iv = iv;
  return ioctl(fd, CIOCCRYPT, &c) < 0 ? -errno : 0;
}

/* The server's VmRSS in KiB (/proc/PID/status is readable by anyone). */
static long rss_kib(const char* pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%s/status", pid);
  FILE* f = fopen(path, "r");
  long kib = -1;
  if (f == NULL) return -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
  fclose(f);
  return kib;
}

static void drop_to_nobody(void) {
  if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) {
    perror("dropping to nobody");
    exit(2);
  }
  CHECK(getuid() == 65534 && geteuid() == 65534, "still uid %d", (int)geteuid());
}

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: limits DEVICE SERVER_PID MAX_OPEN_FILES MAX_SESSIONS_TOTAL PER_FILE\n");
    return 2;
  }
  device = argv[1];
  const char* pid = argv[2];
  const int max_files = atoi(argv[3]), max_sessions = atoi(argv[4]), per_file = atoi(argv[5]);
  drop_to_nobody();

  const long before = rss_kib(pid);
  int* fds = calloc((size_t)max_files + 1, sizeof *fds);
  int files = 0, open_errno = 0;
  while (files <= max_files) {
    int fd = open(device, O_RDWR);
    if (fd < 0) {
      open_errno = errno;
      break;
    }
    fds[files++] = fd;
  }
  CHECK(files == max_files && open_errno == ENOMEM, "open: %d files, then %s (expected %d, ENOMEM)",
        files, strerror(open_errno), max_files);
  if (files > max_files) close(fds[--files]);

  /* Sessions on each file until its own bound (ENOSPC) or the server's (ENOMEM). */
  int made = 0, rc = 0, last_file = 0;
  uint32_t first = 0, ses = 0;
  for (int i = 0; i < files && rc != -ENOMEM; i++) {
    int here = 0;
    while ((rc = new_session(fds[i], &ses)) == 0) {
      if (made == 0) first = ses;
      CHECK(encrypt(fds[i], ses) == 0, "session %d does not serve", made);
      made++, here++;
    }
    last_file = i;
    if (rc == -ENOSPC) CHECK(here == per_file, "file %d: %d sessions, then ENOSPC", i, here);
  }
  CHECK(rc == -ENOMEM && made == max_sessions,
        "%d sessions over %d files, then %s (expected %d, then ENOMEM)", made, last_file + 1,
        strerror(-rc), max_sessions);
  printf("ok %d files, then open: %s; %d sessions over %d files, then CIOCGSESSION: %s\n", files,
         strerror(open_errno), made, last_file + 1, strerror(-rc));

  /* At the bound the server serves on: old sessions work, a freed one makes room. */
  CHECK(encrypt(fds[0], first) == 0, "the first session stopped serving at the bound");
  CHECK(new_session(fds[last_file], &ses) == -ENOMEM, "a session beyond the bound was made");
  CHECK(ioctl(fds[0], CIOCFSESSION, &first) == 0, "CIOCFSESSION: %s", strerror(errno));
  CHECK(new_session(fds[last_file], &ses) == 0 && encrypt(fds[last_file], ses) == 0,
        "no session after one was freed");
  const long peak = rss_kib(pid);

  for (int i = 0; i < files; i++) close(fds[i]);
  /* The kernel sends each release on its own; give the server a moment. */
  long after = -1;
  for (int tries = 0; tries < 40; tries++) {
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    after = rss_kib(pid);
    if (after - before < (peak - before) / 4) break;
  }
  printf("ok server RSS %ld KiB before, %ld KiB with %d sessions, %ld KiB after closing\n", before,
         peak, made, after);
  CHECK(before > 0 && peak > before + 1024, "the sessions took %ld KiB", peak - before);
  CHECK(after - before < (peak - before) / 2, "RSS %ld -> %ld -> %ld KiB: not given back", before,
        peak, after);

  /* And everyone is served again. */
  int fd = open(device, O_RDWR);
  CHECK(fd >= 0 && new_session(fd, &ses) == 0 && encrypt(fd, ses) == 0,
        "the server does not serve after the files were closed");
  if (fd >= 0) close(fd);
  free(fds);
  return finish("limits");
}
