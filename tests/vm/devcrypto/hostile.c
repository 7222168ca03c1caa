/* A hostile client of /dev/crypto and a victim beside it. First, a client
 * whose thread waits in a request the server is serving from its memory
 * while another of its threads execve()s: the exec must complete only once
 * the server has answered (see exec_during_request). Then the attacker
 * (nobody) passes, from as many threads as the server has workers, buffers
 * mapped from a file whose reads never answer (stall_fs.c), in requests
 * larger than a CUSE round, which the server must reach in the caller's
 * memory; it also floods small requests, keeps two CIOCKEY modular
 * exponentiations of 8192 bits going (seconds each in an emulated guest),
 * and forks a child that is killed while its stalled request is in the
 * server. Meanwhile the victim (another
 * user) must get every 4 KiB AES-CBC request, and 256 KiB ones from its own
 * memory, answered correctly within a second. Then the server must end
 * within a second of SIGTERM, the attack still on.
 *
 *   hostile DEVICE STALLED_FILE SERVER_PID THREADS
 * Run as root; prints the victim's slowest requests and the stop's time. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cryptodev_abi.h"

enum { kSmall = 4096, kLarge = 256 * 1024 };
static const char *device;
static unsigned char key[16] = {0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
                                0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static void become(uid_t uid) {
  if (setgroups(0, NULL) != 0 || setgid(uid) != 0 || setuid(uid) != 0) {
    perror("hostile: dropping privileges");
    _exit(2);
  }
}

/* An open device with one AES-128-CBC session, or -1. */
static int open_session(uint32_t *ses) {
  int fd = open(device, O_RDWR);
  struct session_op s = {.cipher = CRYPTO_AES_CBC, .keylen = 16};
  s.key = key;
  if (fd >= 0 && ioctl(fd, CIOCGSESSION, &s) == 0) {
    *ses = s.ses;
    return fd;
  }
  if (fd >= 0) close(fd);
  return -1;
}

static int cbc(int fd, uint32_t ses, int op, const void *src, void *dst, size_t len) {
  unsigned char iv[16] = {7};
  struct crypt_op c = {.ses = ses, .op = op, .len = (uint32_t)len};
  c.src = (void *)src, c.dst = dst, c.iv = iv;
  return ioctl(fd, CIOCCRYPT, &c) < 0 ? errno : 0;
}

/* ---- the attacker ---------------------------------------------------- */

enum { kKeyBytes = 1024 }; /* 8192 bits */

static const unsigned char *stalled;
static volatile int stop_attack;
/* Shared with the root parent: the attacker's CIOCKEY operations, and the
 * files and sessions it holds once it has taken all the server lets it. */
struct tally {
  volatile int started, done, failed;
  volatile int files, sessions, hogged;
};
static struct tally *keys;

static void *stall_loop(void *unused) {
  (void)unused;
  uint32_t ses;
  int fd = open_session(&ses);
  unsigned char *out = malloc(kLarge);
  while (fd >= 0 && !stop_attack) cbc(fd, ses, COP_ENCRYPT, stalled, out, kLarge);
  return NULL;
}

static void *flood_loop(void *unused) {
  (void)unused;
  uint32_t ses;
  int fd = open_session(&ses);
  unsigned char data[64] = {0};
  while (fd >= 0 && !stop_attack) cbc(fd, ses, COP_ENCRYPT, data, data, sizeof data);
  return NULL;
}

/* base^e mod n on numbers of 8192 bits, little-endian, again and again. */
static void *key_loop(void *unused) {
  (void)unused;
  int fd = open(device, O_RDWR);
  static uint8_t base[kKeyBytes], e[kKeyBytes], n[kKeyBytes];
  uint8_t *out = malloc(kKeyBytes);
  for (int i = 0; i < kKeyBytes; i++) base[i] = (uint8_t)(i * 7 + 1), e[i] = (uint8_t)(i * 13 + 5), n[i] = 0xff;
  base[kKeyBytes - 1] = 0x7f; /* below n */
  struct crypt_kop kop = {.crk_op = CRK_MOD_EXP, .crk_iparams = 3, .crk_oparams = 1};
  kop.crk_param[0] = (struct crparam){base, 8 * kKeyBytes - 1};
  kop.crk_param[1] = (struct crparam){e, 8 * kKeyBytes};
  kop.crk_param[2] = (struct crparam){n, 8 * kKeyBytes};
  kop.crk_param[3] = (struct crparam){out, 8 * kKeyBytes};
  while (fd >= 0 && !stop_attack) {
    __sync_fetch_and_add(&keys->started, 1);
    if (ioctl(fd, CIOCKEY, &kop) == 0)
      __sync_fetch_and_add(&keys->done, 1);
    else
      __sync_fetch_and_add(&keys->failed, 1);
  }
  return NULL;
}

/* Open files of the device, and sessions on them, until the server says no:
 * what one user may hold of the server's bounds. */
static void hog_quota(void) {
  struct rlimit r;
  if (getrlimit(RLIMIT_NOFILE, &r) == 0) {
    r.rlim_cur = r.rlim_max;
    setrlimit(RLIMIT_NOFILE, &r);
  }
  int fd;
  while ((fd = open(device, O_RDWR)) >= 0) {
    keys->files++;
    struct session_op s = {.cipher = CRYPTO_AES_CBC, .keylen = 16};
    s.key = key;
    for (int i = 0; i < 64 && ioctl(fd, CIOCGSESSION, &s) == 0; i++) keys->sessions++;
  }
  keys->hogged = 1;
}

static void attack(const char *file, int threads) {
  become(65534);
  int f = open(file, O_RDONLY);
  stalled = f < 0 ? MAP_FAILED : mmap(NULL, kLarge, PROT_READ, MAP_SHARED, f, 0);
  if (stalled == MAP_FAILED) {
    perror("hostile: mapping the stalled file");
    _exit(2);
  }
  pthread_t t;
  for (int i = 0; i < threads; i++) pthread_create(&t, NULL, stall_loop, NULL);
  for (int i = 0; i < 2; i++) pthread_create(&t, NULL, flood_loop, NULL);
  for (int i = 0; i < 2; i++) pthread_create(&t, NULL, key_loop, NULL);
  usleep(300 * 1000); /* the threads have their files and sessions */
  hog_quota();
  /* A child that exits (is killed) with its stalled request in the server. */
  for (;;) {
    pid_t child = fork();
    if (child == 0) {
      uint32_t ses;
      int fd = open_session(&ses);
      unsigned char *out = malloc(kLarge);
      if (fd >= 0) cbc(fd, ses, COP_ENCRYPT, stalled, out, kLarge);
      _exit(0);
    }
    usleep(300 * 1000);
    if (child > 0) {
      kill(child, SIGKILL);
      waitpid(child, NULL, WNOHANG);
    }
  }
}

/* ---- the victim ------------------------------------------------------ */

/* Requests for `seconds`: each answered right, the slowest under a second. */
static void victim(double seconds) {
  become(1000);
  uint32_t ses;
  int fd = open_session(&ses);
  if (fd < 0) {
    perror("victim: a session");
    _exit(1);
  }
  static unsigned char plain[kLarge], sealed[kLarge], opened[kLarge];
  for (size_t i = 0; i < sizeof plain; i++) plain[i] = (unsigned char)(i * 31 + 7);
  double slowest_small = 0, slowest_large = 0;
  int small = 0, large = 0, wrong = 0, n = 0;
  const double end = now() + seconds;
  while (now() < end) {
    const size_t len = n++ % 8 == 7 ? kLarge : kSmall;
    const double start = now();
    const int e1 = cbc(fd, ses, COP_ENCRYPT, plain, sealed, len);
    const int e2 = cbc(fd, ses, COP_DECRYPT, sealed, opened, len);
    const double took = (now() - start) / 2;
    if (e1 != 0 || e2 != 0 || memcmp(plain, opened, len) != 0 || memcmp(plain, sealed, 16) == 0) {
      fprintf(stderr, "victim: a %zu-byte request failed: %s / %s\n", len, strerror(e1),
              strerror(e2));
      wrong++;
    }
    if (len == kSmall) {
      small++;
      if (took > slowest_small) slowest_small = took;
    } else {
      large++;
      if (took > slowest_large) slowest_large = took;
    }
    usleep(20 * 1000);
  }
  printf("victim: %d requests of 4 KiB, slowest %.3f s; %d of 256 KiB, slowest %.3f s; %d wrong\n",
         small, slowest_small, large, slowest_large, wrong);
  fflush(stdout);
  _exit(wrong == 0 && small > 0 && large > 0 && slowest_small < 1.0 && slowest_large < 1.0 ? 0 : 1);
}

/* ---- the root parent ------------------------------------------------- */

/* Has the process ended (gone, or a zombie its parent has yet to reap)? */
static int ended(pid_t pid) {
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (f == NULL) return 1;
  const int got = fgets(line, sizeof line, f) != NULL;
  fclose(f);
  const char *state = got ? strrchr(line, ')') : NULL;
  return state != NULL && (state[2] == 'Z' || state[2] == 'X');
}

/* How many of the process's threads are inside a system call `nr`. */
static int threads_in_syscall(pid_t pid, int nr) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *tasks = opendir(path);
  int count = 0;
  for (struct dirent *t; tasks != NULL && (t = readdir(tasks)) != NULL;) {
    if (t->d_name[0] == '.') continue;
    char file[320], line[256];
    snprintf(file, sizeof file, "/proc/%d/task/%s/syscall", (int)pid, t->d_name);
    FILE *f = fopen(file, "r");
    if (f != NULL && fgets(line, sizeof line, f) != NULL && atoi(line) == nr) count++;
    if (f != NULL) fclose(f);
  }
  if (tasks != NULL) closedir(tasks);
  return count;
}

/* Waits for a child up to `seconds`: its exit status, or -1 if it hangs. */
static int wait_for(pid_t pid, double seconds) {
  const double end = now() + seconds;
  int status;
  while (now() < end) {
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    usleep(10 * 1000);
  }
  return -1;
}

/* ---- exec during a request ------------------------------------------ */

/* The server's copiers reach a client's memory by the PID of the thread
 * that made the request (process_vm_readv/writev, as root). Were another
 * thread of the client to execve() a set-user-ID program while a large
 * request is served, and the exec complete, that PID would name the new
 * image and the server could write the request's output into it. The
 * kernel prevents it: execve() completes only once every other thread has
 * exited, and a thread waiting for a FUSE (CUSE) answer that the server has
 * taken exits only when it is answered. Here a client (uid 65533) has a
 * request stalled in the server's memory deadline (its input is mapped from
 * the file that never answers, by the root parent before any read of it is
 * stuck: opening a FUSE file waits for the page a stuck read holds) and
 * exec()s /bin/true from another thread: a
 * pipe closed on exec tells when the exec completed, which must be no
 * sooner than the server's answer (at its deadline, 2 s after the request
 * came, by default). Returns the seconds from the exec's start to its end,
 * or -1. */
static double exec_during_request(const unsigned char *stalled_mapping) {
  int done[2];
  if (pipe2(done, O_CLOEXEC) != 0) return -1;
  const pid_t child = fork();
  if (child == 0) {
    become(65533); /* not the attacker's user: its stuck copier counts against its user */
    close(done[0]);
    stalled = stalled_mapping;
    pthread_t t;
    pthread_create(&t, NULL, stall_loop, NULL);
    /* In the ioctl, and taken by the server (a request still queued in
     * the kernel would be dropped by the exec instead). */
    for (int i = 0; i < 500 && threads_in_syscall(getpid(), SYS_ioctl) < 1; i++) usleep(10 * 1000);
    sleep(1);
    if (write(done[1], "s", 1) != 1) _exit(2);
    execl("/bin/true", "true", (char *)NULL);
    _exit(3);
  }
  close(done[1]);
  char c;
  double took = -1;
  if (child > 0 && read(done[0], &c, 1) == 1) {
    const double start = now();
    struct pollfd p = {.fd = done[0], .events = POLLIN};
    if (poll(&p, 1, 20 * 1000) == 1 && read(done[0], &c, 1) == 0) took = now() - start;
  }
  close(done[0]);
  if (child > 0) {
    if (took < 0) kill(child, SIGKILL);
    waitpid(child, NULL, 0);
  }
  return took;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: hostile DEVICE STALLED_FILE SERVER_PID THREADS\n");
    return 2;
  }
  device = argv[1];
  const pid_t server = (pid_t)atoi(argv[3]);
  const int threads = atoi(argv[4]);
  keys = mmap(NULL, sizeof *keys, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  const int stalled_file = open(argv[2], O_RDONLY);
  const unsigned char *exec_stalled =
      stalled_file < 0 ? MAP_FAILED
                       : mmap(NULL, kLarge, PROT_READ, MAP_SHARED, stalled_file, 0);
  CHECK(exec_stalled != MAP_FAILED, "the stalled file mapped for the exec check");
  const pid_t attacker = fork();
  if (attacker == 0) attack(argv[2], threads);
  sleep(1); /* every worker's worth of stalled requests in the server */
  for (int i = 0; i < 600 && !keys->hogged; i++) usleep(50 * 1000);
  printf("hostile: the attacker holds %d files and %d sessions, all the server lets one user\n",
         keys->files, keys->sessions);
  CHECK(keys->hogged && keys->files > 0, "the attacker took its share of files and sessions");
  const int stuck = threads_in_syscall(attacker, SYS_ioctl);
  printf("hostile: %d of the attacker's threads wait in ioctl\n", stuck);
  fflush(stdout);
  CHECK(stuck >= threads, "the attack is on: %d of %d stalling threads in ioctl", stuck, threads);

  const double exec_took = exec_stalled == MAP_FAILED ? -1 : exec_during_request(exec_stalled);
  printf("hostile: an exec beside a thread whose request was served took %.3f s\n", exec_took);
  fflush(stdout);
  CHECK(exec_took >= 0, "the exec beside a served request completed within 20 s");
  CHECK(exec_took < 0 || exec_took >= 0.3,
        "an exec completed before the server answered another thread's request (%.3f s)",
        exec_took);

  const pid_t victim_pid = fork();
  if (victim_pid == 0) victim(4.0);
  const int victim_status = wait_for(victim_pid, 20.0);
  CHECK(victim_status == 0,
        victim_status < 0 ? "the victim's requests hung (20 s) while the attacker's memory stalled"
                          : "the victim's requests failed or took a second or more (above)");
  CHECK(waitpid(attacker, NULL, WNOHANG) == 0, "the attacker is still at it");
  const int key_running = keys->started - keys->done - keys->failed;
  printf("hostile: the attacker's CIOCKEY: %d done, %d failed, %d running\n", keys->done,
         keys->failed, key_running);
  CHECK(keys->failed == 0 && key_running > 0, "8192-bit CIOCKEY operations in the server");

  char pid_text[32];
  snprintf(pid_text, sizeof pid_text, "%d", (int)server);
  printf("hostile: the server holds %ld KiB (VmRSS), %ld threads\n", status_of(pid_text, "VmRSS"),
         status_of(pid_text, "Threads"));
  fflush(stdout);
  const double start = now();
  kill(server, SIGTERM);
  while (!ended(server) && now() - start < 10.0) usleep(5 * 1000);
  const double took = now() - start;
  printf("hostile: the server ended %.3f s after SIGTERM, the attack on\n", took);
  CHECK(ended(server) && took < 1.0, "the server took %.3f s to end after SIGTERM", took);

  kill(attacker, SIGKILL);
  if (victim_status < 0) kill(victim_pid, SIGKILL);
  return finish("hostile");
}
