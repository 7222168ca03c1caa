/* Preloaded (LD_PRELOAD) into cryptodev-linux's test programs by
 * tests/vm/peer-programs. Written for these tests; no code of the peer's.
 *
 * 1. A shorter alarm. The speed programs (speed, fullspeed, sha_speed,
 *    hashcrypt_speed, async_speed) measure each size until alarm(5) fires
 *    and take no option to change it: 50-100 s per program, several minutes
 *    per set in the emulated guest. Here alarm(N) arms the same SIGALRM
 *    after N * CRYPTOACCEL_ALARM_MS / 5 milliseconds (CRYPTOACCEL_ALARM_MS:
 *    what alarm(5) becomes, default 200; unset or invalid: 200): every loop
 *    and every size still runs and ends the way the program meant, only
 *    sooner. alarm(0) cancels, as alarm does.
 *
 * 2. Which ioctl failed. With CRYPTOACCEL_IOCTL_LOG=FILE, every /dev/crypto
 *    ioctl (type 'c') that fails is appended to FILE as
 *    "<program> <ioctl name> <errno name> (<message>)": the programs' own
 *    messages do not always name the request they sent (asynchelper.h
 *    reports CIOCASYNCCRYPT and CIOCASYNCFETCH as "ioctl(CIOCCRYPT)"), and
 *    some expected failures (a forged tag's EBADMSG) are part of the tests.
 *    The request goes on to the next ioctl in the chain unchanged (another
 *    preloaded library, then libc).
 *
 * 3. stdout line-buffered, as on a terminal: the programs print their
 *    progress to stdout and their errors to stderr, and a log of both then
 *    reads in the order it happened. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

__attribute__((constructor)) static void line_buffered_stdout(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
}

static long scaled_ms(unsigned int seconds) {
  const char *text = getenv("CRYPTOACCEL_ALARM_MS");
  long per_five = 200;
  if (text != NULL && *text != '\0') {
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (end != NULL && *end == '\0' && v > 0 && v <= 3600L * 1000) per_five = v;
  }
  return (long)seconds * per_five / 5;
}

unsigned int alarm(unsigned int seconds) {
  struct itimerval next = {{0, 0}, {0, 0}}, previous;
  if (seconds != 0) {
    long ms = scaled_ms(seconds);
    if (ms < 1) ms = 1;
    next.it_value.tv_sec = ms / 1000;
    next.it_value.tv_usec = (ms % 1000) * 1000;
  }
  if (setitimer(ITIMER_REAL, &next, &previous) != 0) return 0;
  /* What was left of the previous alarm, rounded up as alarm(2) does. */
  return (unsigned int)(previous.it_value.tv_sec + (previous.it_value.tv_usec > 0 ? 1 : 0));
}

/* cryptodev-linux's requests by number (type 'c'). */
static const char *request_name(unsigned long request) {
  static const char *const names[] = {
      [101] = "CRIOGET",       [102] = "CIOCGSESSION",   [103] = "CIOCFSESSION",
      [104] = "CIOCCRYPT",     [105] = "CIOCKEY",        [106] = "CIOCASYMFEAT",
      [107] = "CIOCGSESSINFO", [109] = "CIOCAUTHCRYPT",  [110] = "CIOCASYNCCRYPT",
      [111] = "CIOCASYNCFETCH", [112] = "CIOCCPHASH",
  };
  const unsigned long nr = request & 0xff;
  if (nr < sizeof names / sizeof names[0] && names[nr] != NULL) return names[nr];
  return "unknown";
}

static void log_failure(unsigned long request, int error) {
  const char *path = getenv("CRYPTOACCEL_IOCTL_LOG");
  if (path == NULL || *path == '\0') return;
  char line[256];
  const char *symbol = strerrorname_np(error);
  int n = snprintf(line, sizeof line, "%s %s %s (%s)\n", program_invocation_short_name,
                   request_name(request), symbol != NULL ? symbol : "?", strerror(error));
  if (n <= 0) return;
  if ((size_t)n >= sizeof line) n = sizeof line - 1;
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  if (write(fd, line, (size_t)n) < 0) { /* nothing to do: the log is a courtesy */
  }
  close(fd);
}

int ioctl(int fd, unsigned long request, ...) {
  static int (*next)(int, unsigned long, ...);
  va_list ap;
  va_start(ap, request);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  if (next == NULL) next = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
  if (next == NULL) {
    errno = ENOSYS;
    return -1;
  }
  const int rc = next(fd, request, arg);
  if (rc < 0 && ((request >> 8) & 0xff) == 'c') {
    const int error = errno;
    log_failure(request, error);
    errno = error;
  }
  return rc;
}
