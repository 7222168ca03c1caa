/* The least an AF_ALG cipher request costs on this kernel, without
 * cryptoaccel or OpenSSL: encrypts one buffer in place, over and over, on one
 * kernel implementation, for a given time, in one of four ways, and prints
 * requests per second. Run it in the kernel test bed's guest beside
 * `cryptoaccel speed` and `openssl speed -engine afalg` to see how far each is
 * from the floor (docs/performance.md, issue 4).
 *
 * usage: afalg_floor [-d DRIVER] [-b BYTES] [-s SECONDS] [-n IN_FLIGHT] [-m MODE]
 *   DRIVER     a kernel skcipher name (default virtio_crypto_aes_cbc)
 *   MODE read  sendmsg with the data, then read (default; n must be 1)
 *        aio   sendmsg on each of n operation sockets, one io_submit of n
 *              reads, then io_getevents until all are done
 *        splice  vmsplice + splice the (page-aligned) input, then read
 *        poll  one AIO read, then io_getevents with a zero timeout in a loop
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/if_alg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

enum { kMaxInFlight = 64, kKeySize = 16, kIvSize = 16 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char* what) {
  fprintf(stderr, "afalg_floor: %s: %s\n", what, strerror(errno));
  exit(1);
}

/* Sends the operation and a zero IV, with `data` (may be empty) as payload;
 * `more` keeps the request open for spliced data. */
static void send_request(int op, struct iovec* data, int more) {
  char control[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct af_alg_iv) + kIvSize)];
  memset(control, 0, sizeof control);
  struct msghdr msg = {.msg_iov = data,
                       .msg_iovlen = data != NULL ? 1 : 0,
                       .msg_control = control,
                       .msg_controllen = sizeof control};
  struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_ALG;
  c->cmsg_type = ALG_SET_OP;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  const int encrypt = ALG_OP_ENCRYPT;
  memcpy(CMSG_DATA(c), &encrypt, sizeof encrypt);
  c = CMSG_NXTHDR(&msg, c);
  c->cmsg_level = SOL_ALG;
  c->cmsg_type = ALG_SET_IV;
  c->cmsg_len = CMSG_LEN(sizeof(struct af_alg_iv) + kIvSize);
  struct af_alg_iv* iv = (struct af_alg_iv*)CMSG_DATA(c);
  iv->ivlen = kIvSize;
  const size_t expected = data != NULL ? data->iov_len : 0;
  if (sendmsg(op, &msg, more ? MSG_MORE : 0) != (ssize_t)expected) die("sendmsg");
}

static void read_all(int op, unsigned char* out, size_t bytes) {
  if (read(op, out, bytes) != (ssize_t)bytes) die("read");
}

static void splice_in(int op, int pipe_ends[2], unsigned char* in, size_t bytes) {
  send_request(op, NULL, 1);
  struct iovec pages = {in, bytes};
  if (vmsplice(pipe_ends[1], &pages, 1, 0) != (ssize_t)bytes) die("vmsplice");
  for (size_t left = bytes; left > 0;) {
    const ssize_t moved = splice(pipe_ends[0], NULL, op, NULL, left, SPLICE_F_MORE);
    if (moved <= 0) die("splice");
    left -= (size_t)moved;
  }
  if (send(op, NULL, 0, 0) != 0) die("send");
}

static void aio_read_all(aio_context_t context, const int* ops, unsigned char* buffer,
                         size_t bytes, int count, int poll) {
  struct iocb reads[kMaxInFlight];
  struct iocb* list[kMaxInFlight];
  struct io_event events[kMaxInFlight];
  for (int i = 0; i < count; ++i) {
    memset(&reads[i], 0, sizeof reads[i]);
    reads[i].aio_lio_opcode = IOCB_CMD_PREAD;
    reads[i].aio_fildes = (unsigned)ops[i];
    reads[i].aio_buf = (unsigned long)(buffer + (size_t)i * bytes);
    reads[i].aio_nbytes = bytes;
    list[i] = &reads[i];
  }
  if (syscall(SYS_io_submit, context, count, list) != count) die("io_submit");
  struct timespec zero = {0, 0};
  for (int done = 0; done < count;) {
    const long got = syscall(SYS_io_getevents, context, 1, count - done, events,
                             poll ? &zero : NULL);
    if (got < 0) die("io_getevents");
    for (long e = 0; e < got; ++e)
      if (events[e].res != (long long)bytes) {
        fprintf(stderr, "afalg_floor: a read returned %lld\n", (long long)events[e].res);
        exit(1);
      }
    done += (int)got;
  }
}

int main(int argc, char** argv) {
  const char* driver = "virtio_crypto_aes_cbc";
  const char* mode = "read";
  size_t bytes = 16;
  double seconds = 1;
  int in_flight = 1;
  for (int opt; (opt = getopt(argc, argv, "d:b:s:n:m:h")) != -1;) {
    switch (opt) {
      case 'd': driver = optarg; break;
      case 'b': bytes = strtoul(optarg, NULL, 10); break;
      case 's': seconds = strtod(optarg, NULL); break;
      case 'n': in_flight = atoi(optarg); break;
      case 'm': mode = optarg; break;
      default:
        fprintf(stderr,
                "usage: afalg_floor [-d DRIVER] [-b BYTES] [-s SECONDS] [-n IN_FLIGHT] "
                "[-m read|aio|splice|poll]\n");
        return opt == 'h' ? 0 : 2;
    }
  }
  const int aio = strcmp(mode, "aio") == 0, poll = strcmp(mode, "poll") == 0;
  const int spliced = strcmp(mode, "splice") == 0;
  if (!aio && !poll && !spliced && strcmp(mode, "read") != 0) {
    fprintf(stderr, "afalg_floor: unknown mode %s (read, aio, splice or poll)\n", mode);
    return 2;
  }
  if (bytes == 0 || bytes % 16 != 0 || bytes > 65536) {
    fprintf(stderr, "afalg_floor: -b must be a multiple of 16 from 16 to 65536\n");
    return 2;
  }
  if (in_flight < 1 || in_flight > kMaxInFlight || (in_flight > 1 && !aio) || seconds <= 0) {
    fprintf(stderr, "afalg_floor: -n is 1 to %d, above 1 only with -m aio; -s above 0\n",
            kMaxInFlight);
    return 2;
  }

  struct sockaddr_alg address = {.salg_family = AF_ALG, .salg_type = "skcipher"};
  snprintf((char*)address.salg_name, sizeof address.salg_name, "%s", driver);
  const int transform = socket(AF_ALG, SOCK_SEQPACKET, 0);
  if (transform < 0) die("socket(AF_ALG)");
  if (bind(transform, (struct sockaddr*)&address, sizeof address) != 0) die(driver);
  const unsigned char key[kKeySize] = {0};
  if (setsockopt(transform, SOL_ALG, ALG_SET_KEY, key, sizeof key) != 0) die("ALG_SET_KEY");
  int ops[kMaxInFlight];
  for (int i = 0; i < in_flight; ++i)
    if ((ops[i] = accept(transform, NULL, NULL)) < 0) die("accept");
  unsigned char* buffer = aligned_alloc(4096, ((bytes * (size_t)in_flight + 4095) / 4096) * 4096);
  if (buffer == NULL) die("aligned_alloc");
  memset(buffer, 0, bytes * (size_t)in_flight);
  aio_context_t context = 0;
  if ((aio || poll) && syscall(SYS_io_setup, kMaxInFlight, &context) != 0) die("io_setup");
  int pipe_ends[2];
  if (spliced) {
    if (pipe(pipe_ends) != 0) die("pipe");
    if (fcntl(pipe_ends[1], F_SETPIPE_SZ, 65536) < 0) die("F_SETPIPE_SZ");
  }

  long requests = 0;
  const double start = now(), end = start + seconds;
  while (now() < end) {
    for (int i = 0; i < in_flight; ++i) {
      struct iovec data = {buffer + (size_t)i * bytes, bytes};
      if (spliced)
        splice_in(ops[i], pipe_ends, data.iov_base, bytes);
      else
        send_request(ops[i], &data, 0);
    }
    if (aio || poll)
      aio_read_all(context, ops, buffer, bytes, in_flight, poll);
    else
      read_all(ops[0], buffer, bytes);
    requests += in_flight;
  }
  const double elapsed = now() - start;
  printf("%s %s %zu bytes, %d in flight: %.0f requests/s, %.1f us each, %.0f kB/s\n", driver,
         mode, bytes, in_flight, (double)requests / elapsed, elapsed / (double)requests * 1e6,
         (double)requests * (double)bytes / elapsed / 1000);
  return 0;
}
