/* The floor under any provider that gathers ASYNC jobs' requests into
 * bursts: what OpenSSL's job switches and an application's select loop
 * cost per request, with no cipher at all. N jobs each run a loop of
 * "requests"; every request pauses its job once (ASYNC_pause_job) and the
 * main loop resumes each paused job whose descriptor select() reports
 * readable, the way `openssl speed -async_jobs N` drives its jobs.
 *
 *   --signal shared   one eventfd, made readable once and never read, in
 *                     every job's wait context: no system call per pause
 *   --signal each     an eventfd per job, written at every pause (what an
 *                     application waiting for edges, EPOLLET, needs)
 *   --work pause      the request is the pause alone
 *   --work evp-null   the request is an EVP_EncryptUpdate of --bytes with
 *                     the default provider's NULL cipher, then the pause:
 *                     OpenSSL's EVP and provider dispatch on top
 *
 * It prints nanoseconds per request. A gathering provider's request costs
 * at least this plus its driver's share of a burst, so the ratio it can
 * reach against a provider that needs no job switch is bounded by it. See
 * bench/README.md, "async_floor". */
#include <openssl/async.h>
#include <openssl/evp.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#define MAX_JOBS 64

enum signal_kind { SIGNAL_SHARED, SIGNAL_EACH };
enum work_kind { WORK_PAUSE, WORK_EVP_NULL };

struct job_state {
  ASYNC_JOB *job;
  ASYNC_WAIT_CTX *wait;
  int fd;
  EVP_CIPHER_CTX *cipher;
  unsigned char *buf;
};

static enum signal_kind signal_kind = SIGNAL_SHARED;
static enum work_kind work_kind = WORK_PAUSE;
static size_t bytes = 1024;
static volatile int running = 1;
static const char wait_key = 0;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void make_readable(int fd) {
  const uint64_t one = 1;
  if (write(fd, &one, sizeof one) != sizeof one) {
    perror("async_floor: eventfd write");
    exit(2);
  }
}

/* One job: requests until the main loop says stop; returns their count. */
static int job_loop(void *arg) {
  struct job_state *s = *(struct job_state **)arg;
  long count = 0;
  while (running) {
    if (work_kind == WORK_EVP_NULL) {
      int outl = 0;
      if (EVP_EncryptUpdate(s->cipher, s->buf, &outl, s->buf, (int)bytes) != 1) return -1;
    }
    if (signal_kind == SIGNAL_EACH) make_readable(s->fd);
    ASYNC_pause_job();
    count++;
  }
  return (int)count;
}

static void usage(FILE *to) {
  fprintf(to,
          "usage: async_floor [--jobs N] [--seconds S] [--signal shared|each]\n"
          "                   [--work pause|evp-null] [--bytes B]\n"
          "Prints OpenSSL's ASYNC job cost per request, with no cipher (bench/README.md).\n");
}

int main(int argc, char **argv) {
  int jobs = 16;
  double seconds = 2;
  static const struct option options[] = {
      {"jobs", required_argument, 0, 'j'},   {"seconds", required_argument, 0, 's'},
      {"signal", required_argument, 0, 'g'}, {"work", required_argument, 0, 'w'},
      {"bytes", required_argument, 0, 'b'},  {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  for (int c; (c = getopt_long(argc, argv, "", options, NULL)) != -1;) {
    char *end = NULL;
    switch (c) {
      case 'j':
        jobs = (int)strtol(optarg, &end, 10);
        if (*end != '\0' || jobs < 1 || jobs > MAX_JOBS) {
          fprintf(stderr, "async_floor: --jobs must be 1 to %d\n", MAX_JOBS);
          return 2;
        }
        break;
      case 's':
        seconds = strtod(optarg, &end);
        if (*end != '\0' || !(seconds > 0 && seconds <= 600)) {
          fprintf(stderr, "async_floor: --seconds must be above 0 and at most 600\n");
          return 2;
        }
        break;
      case 'g':
        if (strcmp(optarg, "shared") == 0) {
          signal_kind = SIGNAL_SHARED;
        } else if (strcmp(optarg, "each") == 0) {
          signal_kind = SIGNAL_EACH;
        } else {
          fprintf(stderr, "async_floor: --signal is shared or each, not '%s'\n", optarg);
          return 2;
        }
        break;
      case 'w':
        if (strcmp(optarg, "pause") == 0) {
          work_kind = WORK_PAUSE;
        } else if (strcmp(optarg, "evp-null") == 0) {
          work_kind = WORK_EVP_NULL;
        } else {
          fprintf(stderr, "async_floor: --work is pause or evp-null, not '%s'\n", optarg);
          return 2;
        }
        break;
      case 'b': {
        const long b = strtol(optarg, &end, 10);
        if (*end != '\0' || b < 16 || b > 1 << 20 || b % 16 != 0) {
          fprintf(stderr, "async_floor: --bytes must be a multiple of 16 from 16 to 1048576\n");
          return 2;
        }
        bytes = (size_t)b;
        break;
      }
      case 'h':
        usage(stdout);
        return 0;
      default:
        usage(stderr);
        return 2;
    }
  }
  if (optind != argc) {
    usage(stderr);
    return 2;
  }

  if (!ASYNC_is_capable()) {
    fprintf(stderr, "async_floor: this OpenSSL has no ASYNC jobs\n");
    return 1;
  }
  struct job_state state[MAX_JOBS];
  memset(state, 0, sizeof state);
  const int shared_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (shared_fd < 0) {
    perror("async_floor: eventfd");
    return 1;
  }
  make_readable(shared_fd);
  EVP_CIPHER *null_cipher = NULL;
  if (work_kind == WORK_EVP_NULL && (null_cipher = EVP_CIPHER_fetch(NULL, "NULL", NULL)) == NULL) {
    fprintf(stderr, "async_floor: the default provider has no NULL cipher\n");
    return 1;
  }
  for (int i = 0; i < jobs; i++) {
    struct job_state *s = &state[i];
    s->wait = ASYNC_WAIT_CTX_new();
    s->fd = signal_kind == SIGNAL_SHARED ? shared_fd : eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (s->wait == NULL || s->fd < 0 ||
        ASYNC_WAIT_CTX_set_wait_fd(s->wait, &wait_key, s->fd, NULL, NULL) != 1) {
      fprintf(stderr, "async_floor: cannot set up job %d\n", i);
      return 1;
    }
    if (work_kind == WORK_EVP_NULL) {
      s->cipher = EVP_CIPHER_CTX_new();
      s->buf = calloc(1, bytes);
      if (s->cipher == NULL || s->buf == NULL ||
          EVP_EncryptInit_ex2(s->cipher, null_cipher, NULL, NULL, NULL) != 1) {
        fprintf(stderr, "async_floor: cannot set up job %d's cipher\n", i);
        return 1;
      }
    }
  }

  long total = 0;
  int in_progress = 0;
  const double start = now();
  for (int i = 0; i < jobs; i++) {
    struct job_state *s = &state[i];
    int result = 0;
    switch (ASYNC_start_job(&s->job, s->wait, &result, job_loop, &s, sizeof s)) {
      case ASYNC_PAUSE:
        in_progress++;
        break;
      case ASYNC_FINISH:
        total += result;
        break;
      default:
        fprintf(stderr, "async_floor: job %d did not start\n", i);
        return 1;
    }
  }
  while (in_progress > 0) {
    if (running && now() - start >= seconds) running = 0;
    fd_set readable;
    FD_ZERO(&readable);
    int highest = 0;
    for (int i = 0; i < jobs; i++) {
      if (state[i].job == NULL) continue;
      OSSL_ASYNC_FD fd;
      size_t n = 0;
      if (!ASYNC_WAIT_CTX_get_all_fds(state[i].wait, NULL, &n) || n != 1) return 1;
      ASYNC_WAIT_CTX_get_all_fds(state[i].wait, &fd, &n);
      FD_SET(fd, &readable);
      if (fd > highest) highest = fd;
    }
    if (select(highest + 1, &readable, NULL, NULL, NULL) < 0) {
      if (errno == EINTR) continue;
      perror("async_floor: select");
      return 1;
    }
    for (int i = 0; i < jobs; i++) {
      struct job_state *s = &state[i];
      if (s->job == NULL) continue;
      OSSL_ASYNC_FD fd;
      size_t n = 0;
      ASYNC_WAIT_CTX_get_all_fds(s->wait, NULL, &n);
      ASYNC_WAIT_CTX_get_all_fds(s->wait, &fd, &n);
      if (!FD_ISSET(fd, &readable)) continue;
      int result = 0;
      switch (ASYNC_start_job(&s->job, s->wait, &result, job_loop, &s, sizeof s)) {
        case ASYNC_PAUSE:
          break;
        case ASYNC_FINISH:
          in_progress--;
          if (result < 0) {
            fprintf(stderr, "async_floor: job %d's request failed\n", i);
            return 1;
          }
          total += result;
          break;
        default:
          fprintf(stderr, "async_floor: job %d could not be resumed\n", i);
          return 1;
      }
    }
  }
  const double elapsed = now() - start;

  printf("async_floor: %d jobs, --signal %s, --work %s", jobs,
         signal_kind == SIGNAL_SHARED ? "shared" : "each",
         work_kind == WORK_PAUSE ? "pause" : "evp-null");
  if (work_kind == WORK_EVP_NULL) printf(" --bytes %zu", bytes);
  printf(": %ld requests in %.3f s, %.1f ns per request\n", total, elapsed, elapsed * 1e9 / (double)total);
  for (int i = 0; i < jobs; i++) {
    EVP_CIPHER_CTX_free(state[i].cipher);
    free(state[i].buf);
    ASYNC_WAIT_CTX_free(state[i].wait);
    if (signal_kind == SIGNAL_EACH) close(state[i].fd);
  }
  EVP_CIPHER_free(null_cipher);
  close(shared_fd);
  return 0;
}
