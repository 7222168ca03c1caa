/* Tiny test harness shared by the C programs: hex decoding, a pass/fail
 * tally, a process's status numbers and the closing "N passed, N failed"
 * line. */
#ifndef CRYPTOACCEL_TEST_CHECK_H
#define CRYPTOACCEL_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

#define CHECK(cond, ...)                   \
  do {                                     \
    if (cond) {                            \
      passed++;                            \
    } else {                               \
      failed++;                            \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);        \
      fputc('\n', stderr);                 \
    }                                      \
  } while (0)

/* Decodes hex into a buffer it allocates; *len receives the byte count. */
static inline unsigned char *unhex(const char *text, size_t *len) {
  size_t n = strlen(text) / 2;
  unsigned char *out = malloc(n ? n : 1);
  for (size_t i = 0; i < n; i++) {
    unsigned int byte;
    sscanf(text + 2 * i, "%2x", &byte);
    out[i] = (unsigned char)byte;
  }
  *len = n;
  return out;
}

/* A number of /proc/PID/status (readable by anyone): "VmRSS" in KiB,
 * "Threads"; -1 when the process or the field is not there. */
static inline long status_of(const char *pid, const char *field) {
  char path[64], line[256], format[64];
  snprintf(path, sizeof path, "/proc/%s/status", pid);
  snprintf(format, sizeof format, "%s: %%ld", field);
  FILE *f = fopen(path, "r");
  long value = -1;
  if (f == NULL) return -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, format, &value) == 1) break;
  fclose(f);
  return value;
}

static inline int finish(const char *program) {
  printf("%s: %d passed, %d failed\n", program, passed, failed);
  return failed == 0 ? 0 : 1;
}

#endif
