/* The floor under the dpdk driver: DPDK's own bursts on one crypto device,
 * with neither cryptoaccel nor OpenSSL in the way. For each size it runs
 * bursts of --burst operations (AES-128-CBC encryption and AES-128-GCM
 * sealing with no AAD, in place, each operation's IV and fields set again
 * per burst as an application must) for about --seconds, and prints GB/s.
 * With --api queue (the default) a burst is enqueued on one queue pair and
 * dequeued; with --api cpu it is one call of DPDK's synchronous CPU crypto
 * API (rte_cryptodev_sym_cpu_crypto_process), which the PMDs that compute
 * with the CPU offer, with no operations or mbufs. The first operation of
 * each is checked against OpenSSL once, so that a figure is never of wrong
 * output.
 *
 *   dpdk_floor [--device NAME] [--burst N] [--api queue|cpu] [--seconds S]
 *              [--sizes A,B,..] -- EAL-ARGS
 *
 * See bench/README.md, "dpdk_floor". */
#include <openssl/evp.h>
#include <rte_cryptodev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_BURST 64
#define MAX_SIZE 16384
#define IV_OFFSET (sizeof(struct rte_crypto_op) + sizeof(struct rte_crypto_sym_op))

static const uint8_t key[16] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                                0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x12};
static const uint8_t iv[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char* what) {
  fprintf(stderr, "dpdk_floor: %s (%s)\n", what, rte_strerror(rte_errno));
  exit(1);
}

struct bench {
  uint8_t dev;
  int cpu; /* --api cpu */
  void* session;
  /* --api cpu: a burst's vectors, over the mbufs' data. */
  struct rte_crypto_vec data[MAX_BURST];
  struct rte_crypto_sgl sgl[MAX_BURST];
  struct rte_crypto_va_iova_ptr iv[MAX_BURST], digest[MAX_BURST], aad[MAX_BURST];
  int32_t status[MAX_BURST];
  struct rte_mempool *sessions, *ops, *mbufs;
  struct rte_crypto_op* op[MAX_BURST];
  struct rte_mbuf* m[MAX_BURST];
  uint8_t tag[MAX_BURST][16];
  int burst;
};

static void* make_session(struct bench* b, int gcm) {
  struct rte_crypto_sym_xform x;
  memset(&x, 0, sizeof x);
  if (gcm) {
    x.type = RTE_CRYPTO_SYM_XFORM_AEAD;
    x.aead.op = RTE_CRYPTO_AEAD_OP_ENCRYPT;
    x.aead.algo = RTE_CRYPTO_AEAD_AES_GCM;
    x.aead.key.data = (uint8_t*)key;
    x.aead.key.length = 16;
    x.aead.iv.offset = IV_OFFSET;
    x.aead.iv.length = 12;
    x.aead.digest_length = 16;
    x.aead.aad_length = 0;
  } else {
    x.type = RTE_CRYPTO_SYM_XFORM_CIPHER;
    x.cipher.op = RTE_CRYPTO_CIPHER_OP_ENCRYPT;
    x.cipher.algo = RTE_CRYPTO_CIPHER_AES_CBC;
    x.cipher.key.data = (uint8_t*)key;
    x.cipher.key.length = 16;
    x.cipher.iv.offset = IV_OFFSET;
    x.cipher.iv.length = 16;
  }
  void* s = rte_cryptodev_sym_session_create(b->dev, &x, b->sessions);
  if (s == NULL) die("rte_cryptodev_sym_session_create");
  return s;
}

/* --api cpu: request i's vectors for one burst, what an application sets
 * per request there. */
static void fill_cpu(struct bench* b, int i, size_t size) {
  b->data[i].base = rte_pktmbuf_mtod(b->m[i], void*);
  b->data[i].len = (uint32_t)size;
  b->data[i].tot_len = (uint32_t)size;
  b->sgl[i].vec = &b->data[i];
  b->sgl[i].num = 1;
  b->iv[i].va = (void*)iv;
  b->digest[i].va = b->tag[i];
  b->aad[i].va = b->tag[i];
}

/* Fills operation i for one burst: what an application sets per request. */
static void fill(struct bench* b, int i, void* session, int gcm, size_t size) {
  if (b->cpu) {
    fill_cpu(b, i, size);
    return;
  }
  struct rte_crypto_op* op = b->op[i];
  struct rte_mbuf* m = b->m[i];
  op->status = RTE_CRYPTO_OP_STATUS_NOT_PROCESSED;
  op->sess_type = RTE_CRYPTO_OP_WITH_SESSION;
  op->sym->session = session;
  op->sym->m_src = m;
  op->sym->m_dst = NULL;
  m->data_len = (uint16_t)size;
  m->pkt_len = (uint32_t)size;
  memcpy(rte_crypto_op_ctod_offset(op, uint8_t*, IV_OFFSET), iv, gcm ? 12 : 16);
  if (gcm) {
    op->sym->aead.data.offset = 0;
    op->sym->aead.data.length = (uint32_t)size;
    op->sym->aead.digest.data = b->tag[i];
    op->sym->aead.aad.data = b->tag[i];
  } else {
    op->sym->cipher.data.offset = 0;
    op->sym->cipher.data.length = (uint32_t)size;
  }
}

static void run_cpu(struct bench* b) {
  struct rte_crypto_sym_vec vec = {.num = (uint32_t)b->burst,
                                   .src_sgl = b->sgl,
                                   .iv = b->iv,
                                   .digest = b->digest,
                                   .aad = b->aad,
                                   .status = b->status};
  union rte_crypto_sym_ofs ofs = {.raw = 0};
  if (rte_cryptodev_sym_cpu_crypto_process(b->dev, b->session, ofs, &vec) != (uint32_t)b->burst) {
    fprintf(stderr, "dpdk_floor: a CPU crypto operation failed (status %d)\n", b->status[0]);
    exit(1);
  }
}

static void run_burst(struct bench* b) {
  if (b->cpu) {
    run_cpu(b);
    return;
  }
  int enqueued = 0, done = 0;
  struct rte_crypto_op* back[MAX_BURST];
  while (done < b->burst) {
    if (enqueued < b->burst)
      enqueued +=
          rte_cryptodev_enqueue_burst(b->dev, 0, b->op + enqueued, (uint16_t)(b->burst - enqueued));
    done += rte_cryptodev_dequeue_burst(b->dev, 0, back, (uint16_t)(b->burst - done));
  }
  for (int i = 0; i < b->burst; i++)
    if (b->op[i]->status != RTE_CRYPTO_OP_STATUS_SUCCESS) {
      fprintf(stderr, "dpdk_floor: an operation failed (status %d)\n", b->op[i]->status);
      exit(1);
    }
}

/* The first operation's output against OpenSSL's, once per size. */
static void check(struct bench* b, int gcm, size_t size) {
  uint8_t in[MAX_SIZE], expected[MAX_SIZE + 16], tag[16];
  int len = 0, tail = 0;
  memset(in, 0x5a, size);
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  EVP_EncryptInit_ex(ctx, gcm ? EVP_aes_128_gcm() : EVP_aes_128_cbc(), NULL, NULL, NULL);
  if (gcm) EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL);
  EVP_EncryptInit_ex(ctx, NULL, NULL, key, iv);
  EVP_CIPHER_CTX_set_padding(ctx, 0);
  EVP_EncryptUpdate(ctx, expected, &len, in, (int)size);
  EVP_EncryptFinal_ex(ctx, expected + len, &tail);
  if (gcm) EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag);
  EVP_CIPHER_CTX_free(ctx);
  const uint8_t* out = rte_pktmbuf_mtod(b->m[0], const uint8_t*);
  if (memcmp(out, expected, size) != 0 || (gcm && memcmp(b->tag[0], tag, 16) != 0)) {
    fprintf(stderr, "dpdk_floor: %s at %zu bytes differs from OpenSSL\n",
            gcm ? "AES-128-GCM" : "AES-128-CBC", size);
    exit(1);
  }
}

static double measure(struct bench* b, int gcm, size_t size, double seconds) {
  void* session = make_session(b, gcm);
  b->session = session;
  for (int i = 0; i < b->burst; i++) memset(rte_pktmbuf_mtod(b->m[i], uint8_t*), 0x5a, size);
  for (int i = 0; i < b->burst; i++) fill(b, i, session, gcm, size);
  run_burst(b);
  check(b, gcm, size);
  uint64_t bytes = 0;
  const double start = now();
  double t = start;
  while (t - start < seconds) {
    for (int round = 0; round < 16; round++) {
      for (int i = 0; i < b->burst; i++) fill(b, i, session, gcm, size);
      run_burst(b);
      bytes += (uint64_t)size * (uint64_t)b->burst;
    }
    t = now();
  }
  rte_cryptodev_sym_session_free(b->dev, session);
  return (double)bytes / (t - start);
}

int main(int argc, char** argv) {
  const char* device = "crypto_aesni_mb0";
  double seconds = 1.0;
  char sizes_text[256] = "256,1024,16384";
  struct bench b;
  memset(&b, 0, sizeof b);
  b.burst = 32;
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (i + 1 >= argc) break;
    if (strcmp(argv[i], "--device") == 0)
      device = argv[++i];
    else if (strcmp(argv[i], "--burst") == 0)
      b.burst = atoi(argv[++i]);
    else if (strcmp(argv[i], "--api") == 0) {
      const char* api = argv[++i];
      if (strcmp(api, "cpu") != 0 && strcmp(api, "queue") != 0) {
        fprintf(stderr, "dpdk_floor: --api is queue or cpu, not %s\n", api);
        return 2;
      }
      b.cpu = strcmp(api, "cpu") == 0;
    } else if (strcmp(argv[i], "--seconds") == 0)
      seconds = atof(argv[++i]);
    else if (strcmp(argv[i], "--sizes") == 0)
      snprintf(sizes_text, sizeof sizes_text, "%s", argv[++i]);
    else {
      fprintf(stderr, "dpdk_floor: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (i >= argc || b.burst < 1 || b.burst > MAX_BURST || seconds <= 0) {
    fprintf(stderr,
            "usage: dpdk_floor [--device NAME] [--burst 1-%d] [--api queue|cpu] [--seconds S] "
            "[--sizes A,B,..] -- EAL-ARGS\n",
            MAX_BURST);
    return 2;
  }
  argv[i] = argv[0];
  if (rte_eal_init(argc - i, argv + i) < 0) die("rte_eal_init");
  const int dev = rte_cryptodev_get_dev_id(device);
  if (dev < 0) die("no such crypto device");
  b.dev = (uint8_t)dev;
  b.sessions = rte_cryptodev_sym_session_pool_create(
      "floor_sess", 64, rte_cryptodev_sym_get_private_session_size(b.dev), 0, 0, SOCKET_ID_ANY);
  b.ops = rte_crypto_op_pool_create("floor_ops", RTE_CRYPTO_OP_TYPE_SYMMETRIC, MAX_BURST, 0, 32,
                                    SOCKET_ID_ANY);
  b.mbufs = rte_pktmbuf_pool_create("floor_mbufs", MAX_BURST, 0, 0, RTE_PKTMBUF_HEADROOM + MAX_SIZE,
                                    SOCKET_ID_ANY);
  if (b.sessions == NULL || b.ops == NULL || b.mbufs == NULL) die("pools");
  struct rte_cryptodev_config config = {.socket_id = SOCKET_ID_ANY, .nb_queue_pairs = 1};
  struct rte_cryptodev_qp_conf qp = {.nb_descriptors = 2 * MAX_BURST, .mp_session = b.sessions};
  if (rte_cryptodev_configure(b.dev, &config) < 0 ||
      rte_cryptodev_queue_pair_setup(b.dev, 0, &qp, SOCKET_ID_ANY) < 0 ||
      rte_cryptodev_start(b.dev) < 0)
    die("device set-up");
  if (rte_crypto_op_bulk_alloc(b.ops, RTE_CRYPTO_OP_TYPE_SYMMETRIC, b.op, (uint16_t)b.burst) !=
          (unsigned)b.burst ||
      rte_pktmbuf_alloc_bulk(b.mbufs, b.m, (unsigned)b.burst) != 0)
    die("allocation");

  if (b.cpu) {
    struct rte_cryptodev_info info;
    rte_cryptodev_info_get(b.dev, &info);
    if ((info.feature_flags & RTE_CRYPTODEV_FF_SYM_CPU_CRYPTO) == 0) {
      fprintf(stderr, "dpdk_floor: %s offers no CPU crypto API\n", device);
      return 1;
    }
  }
  printf("%s, %d operations per burst (%s API), GB/s\n", device, b.burst,
         b.cpu ? "CPU crypto" : "queue");
  for (int gcm = 0; gcm <= 1; gcm++) {
    printf("%s", gcm ? "AES-128-GCM seal" : "AES-128-CBC encrypt");
    char copy[256];
    snprintf(copy, sizeof copy, "%s", sizes_text);
    for (char* s = strtok(copy, ","); s != NULL; s = strtok(NULL, ",")) {
      const long size = strtol(s, NULL, 10);
      if (size < 16 || size > MAX_SIZE || size % 16 != 0) {
        fprintf(stderr, "\ndpdk_floor: size %s is not a multiple of 16 from 16 to %d\n", s,
                MAX_SIZE);
        return 2;
      }
      printf(" %ld:%.3f", size, measure(&b, gcm, (size_t)size, seconds) / 1e9);
      fflush(stdout);
    }
    printf("\n");
  }
  return 0;
}
