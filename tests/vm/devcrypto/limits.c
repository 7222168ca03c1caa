/* The devcrypto server's server-wide bounds, as an unprivileged user
 * (issue 15, item 6): it drops to nobody, opens the device until open fails,
 * makes sessions on every file until CIOCGSESSION fails, and checks that the
 * bounds answer ENOMEM (cryptodev-linux's answer when it cannot allocate),
 * that the server serves on at the bound, and that the server's resident
 * memory comes back down once the files are closed. The memory is read by
 * a root parent from /proc/PID/smaps_rollup, which walks the page tables:
 * VmRSS in /proc/PID/status is summed from per-thread counters that lag by
 * up to 64 pages a thread on Linux 6.1 (2 MB over the server's 9 threads).
 *
 *   limits DEVICE SERVER_PID MAX_OPEN_FILES MAX_SESSIONS_TOTAL PER_FILE */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cryptodev_abi.h"

static const char *device;
static unsigned char key[16] = {0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
                                0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c};

static int new_session(int fd, uint32_t *ses) {
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


/* Rss of smaps_rollup less its AnonHugePages, in KiB (needs root).
 * khugepaged collapses a thread's stack and the libfuse buffer beside it
 * into a 2 MB page whenever it passes by (seen: +4 MB in the middle of a
 * run, on two idle workers); sessions live in the heap's small pages. */
static long exact_rss_kib(const char *pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%s/smaps_rollup", pid);
  FILE *f = fopen(path, "r");
  long rss = -1, huge = 0, kib;
  if (f == NULL) return -1;
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "Rss: %ld kB", &kib) == 1) rss = kib;
    if (sscanf(line, "AnonHugePages: %ld kB", &kib) == 1) huge = kib;
  }
  fclose(f);
  return rss < 0 ? -1 : rss - huge;
}

static int ask[2], answer[2]; /* the child's questions, the parent's answers */

static long rss_kib(const char *pid) {
  long kib = -1;
  (void)pid;
  if (write(ask[1], "r", 1) != 1 || read(answer[0], &kib, sizeof kib) != sizeof kib) return -1;
  return kib;
}

/* The root parent: answers every question with the server's RSS until the
 * child ends, and returns the child's exit status. */
static int measure_for(pid_t child, const char *pid) {
  char c;
  close(ask[1]), close(answer[0]);
  while (read(ask[0], &c, 1) == 1) {
    long kib = exact_rss_kib(pid);
    if (write(answer[1], &kib, sizeof kib) != sizeof kib) break;
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* Requests from 8 processes at once, so that the server starts all its
 * worker threads (libfuse starts one when none is idle, and keeps them):
 * their stacks, buffers and arenas are then in the figure before, and what
 * stays after is what the sessions left behind. */
/* The server's RSS once it stays the same for 200 ms (at most 6 s). */
static long settled_rss_kib(const char *pid) {
  long last = rss_kib(pid);
  int same = 0;
  for (int tries = 0; tries < 60 && same < 2; tries++) {
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    const long now = rss_kib(pid);
    same = now == last ? same + 1 : 0;
    last = now;
  }
  return last;
}

static void start_every_worker(void) {
  pid_t pids[8];
  for (int i = 0; i < 8; i++) {
    pids[i] = fork();
    if (pids[i] == 0) {
      int fd = open(device, O_RDWR);
      uint32_t ses;
      int ok = fd >= 0 && new_session(fd, &ses) == 0;
      for (int j = 0; ok && j < 20; j++) ok = encrypt(fd, ses) == 0;
      _exit(ok ? 0 : 1);
    }
  }
  for (int i = 0; i < 8; i++) {
    int status = 0;
    waitpid(pids[i], &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "warm-up client %d failed", i);
  }
}

static void drop_to_nobody(void) {
  if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) {
    perror("dropping to nobody");
    exit(2);
  }
  CHECK(getuid() == 65534 && geteuid() == 65534, "still uid %d", (int)geteuid());
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: limits DEVICE SERVER_PID MAX_OPEN_FILES MAX_SESSIONS_TOTAL PER_FILE\n");
    return 2;
  }
  device = argv[1];
  const char *pid = argv[2];
  const int max_files = atoi(argv[3]), max_sessions = atoi(argv[4]), per_file = atoi(argv[5]);
  if (pipe(ask) != 0 || pipe(answer) != 0) return 2;
  fflush(stdout);
  pid_t child = fork();
  if (child < 0) return 2;
  if (child > 0) return measure_for(child, pid);
  close(ask[0]), close(answer[1]);
  drop_to_nobody();

  start_every_worker();
  const long threads = status_of(pid, "Threads");
  /* The warm-up's files close on their own and the server trims its heap
   * when their last session ends: measured once that has settled. */
  const long before = settled_rss_kib(pid);
  int *fds = calloc((size_t)max_files + 1, sizeof *fds);
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
  const long after = settled_rss_kib(pid);
  printf("ok server RSS %ld KiB before, %ld KiB with %d sessions, %ld KiB after closing "
         "(threads: %ld before, %ld after)\n",
         before, peak, made, after, threads, status_of(pid, "Threads"));
  /* The lower of the two is the server without sessions: a warm-up trim
   * that came late makes `before` the higher. */
  const long base = before < after ? before : after;
  CHECK(base > 0 && peak > base + 1024, "the sessions took %ld KiB", peak - base);
  CHECK(after - base < (peak - base) / 2, "RSS %ld -> %ld -> %ld KiB: not given back", before,
        peak, after);

  /* And everyone is served again. */
  int fd = open(device, O_RDWR);
  CHECK(fd >= 0 && new_session(fd, &ses) == 0 && encrypt(fd, ses) == 0,
        "the server does not serve after the files were closed");
  if (fd >= 0) close(fd);
  free(fds);
  return finish("limits");
}
