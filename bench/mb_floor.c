/* The floor under a multi-buffer driver (issue 19): raw libipsec-mb bursts,
 * with neither cryptoaccel nor OpenSSL in the way. For each lane count and
 * size it submits bursts of independent AES-128-CBC encryptions
 * (IMB_SUBMIT_CIPHER_BURST, a key, IV and buffer per lane) and of
 * HMAC-SHA256 (IMB_SUBMIT_HASH_BURST), for about --seconds each, and prints
 * GB/s. The first lane of each is checked against OpenSSL once, so that a
 * figure is never of wrong output. See bench/README.md, "mb_floor". */
#include <intel-ipsec-mb.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_LANES 32

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

struct lanes {
  uint8_t *buf[MAX_LANES];
  uint8_t iv[MAX_LANES][16];
  uint8_t tag[MAX_LANES][32];
  IMB_JOB jobs[MAX_LANES];
};

static DECLARE_ALIGNED(uint32_t enc_keys[15 * 4], 16);
static DECLARE_ALIGNED(uint32_t dec_keys[15 * 4], 16);
static DECLARE_ALIGNED(uint8_t ipad_hash[32], 16);
static DECLARE_ALIGNED(uint8_t opad_hash[32], 16);
static const uint8_t key[16] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                                0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x12};

static void set_cipher_jobs(struct lanes *l, int n, size_t size) {
  for (int i = 0; i < n; i++) {
    IMB_JOB *job = &l->jobs[i];
    job->src = l->buf[i];
    job->dst = l->buf[i];
    job->cipher_start_src_offset_in_bytes = 0;
    job->msg_len_to_cipher_in_bytes = size;
    job->iv = l->iv[i];
    job->iv_len_in_bytes = 16;
    job->enc_keys = enc_keys;
    job->dec_keys = dec_keys;
  }
}

static void set_hash_jobs(struct lanes *l, int n, size_t size) {
  for (int i = 0; i < n; i++) {
    IMB_JOB *job = &l->jobs[i];
    job->src = l->buf[i];
    job->hash_start_src_offset_in_bytes = 0;
    job->msg_len_to_hash_in_bytes = size;
    job->auth_tag_output = l->tag[i];
    job->auth_tag_output_len_in_bytes = 32;
    job->u.HMAC._hashed_auth_key_xor_ipad = ipad_hash;
    job->u.HMAC._hashed_auth_key_xor_opad = opad_hash;
  }
}

static int cipher_burst(IMB_MGR *mgr, struct lanes *l, int n) {
  return (int)IMB_SUBMIT_CIPHER_BURST(mgr, l->jobs, (uint32_t)n, IMB_CIPHER_CBC, IMB_DIR_ENCRYPT,
                                      IMB_KEY_128_BYTES);
}

static int hash_burst(IMB_MGR *mgr, struct lanes *l, int n) {
  return (int)IMB_SUBMIT_HASH_BURST(mgr, l->jobs, (uint32_t)n, IMB_AUTH_HMAC_SHA_256);
}

/* Lane 0 against OpenSSL, on fresh data: 0 when they agree. */
static int check_first_lane(IMB_MGR *mgr, struct lanes *l, size_t size) {
  uint8_t *copy = malloc(size), *want = malloc(size + 16);
  int outl = 0, bad = 0;
  unsigned hl = 0;
  uint8_t mac[32];
  for (size_t i = 0; i < size; i++) l->buf[0][i] = (uint8_t)(i * 7 + 1);
  memcpy(copy, l->buf[0], size);
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  EVP_EncryptInit_ex(ctx, EVP_aes_128_cbc(), NULL, key, l->iv[0]);
  EVP_CIPHER_CTX_set_padding(ctx, 0);
  EVP_EncryptUpdate(ctx, want, &outl, copy, (int)size);
  EVP_CIPHER_CTX_free(ctx);
  set_cipher_jobs(l, 1, size);
  if (cipher_burst(mgr, l, 1) != 1 || l->jobs[0].status != IMB_STATUS_COMPLETED ||
      memcmp(l->buf[0], want, size) != 0)
    bad = 1;
  HMAC(EVP_sha256(), key, sizeof key, l->buf[0], size, mac, &hl);
  set_hash_jobs(l, 1, size);
  if (hash_burst(mgr, l, 1) != 1 || l->jobs[0].status != IMB_STATUS_COMPLETED ||
      memcmp(l->tag[0], mac, 32) != 0)
    bad = 1;
  free(copy);
  free(want);
  return bad;
}

static double measure(IMB_MGR *mgr, struct lanes *l, int n, size_t size, int hash,
                      double seconds) {
  long bursts = 0;
  const double start = now();
  double elapsed = 0;
  do {
    for (int k = 0; k < 64; k++) {
      if (hash) {
        set_hash_jobs(l, n, size);
        if (hash_burst(mgr, l, n) != n) return -1;
      } else {
        set_cipher_jobs(l, n, size);
        if (cipher_burst(mgr, l, n) != n) return -1;
      }
    }
    bursts += 64;
    elapsed = now() - start;
  } while (elapsed < seconds);
  return (double)bursts * n * (double)size / elapsed / 1e9;
}

int main(int argc, char **argv) {
  double seconds = 0.5;
  int only_lanes = 0;  /* 0: every lane count */
  long only_bytes = 0; /* 0: every size */
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      seconds = atof(argv[++i]);
    } else if (strcmp(argv[i], "--lanes") == 0 && i + 1 < argc) {
      only_lanes = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--bytes") == 0 && i + 1 < argc) {
      only_bytes = atol(argv[++i]);
    } else {
      fprintf(stderr,
              "usage: mb_floor [--seconds S] [--lanes N] [--bytes B]   (default 0.5 s per "
              "figure, 1, 4, 8, 16 and 32 lanes, 64, 256, 1024 and 16384 bytes)\n");
      return 2;
    }
  }
  if (!(seconds > 0 && seconds < 3600)) {
    fprintf(stderr, "mb_floor: --seconds must be a number above 0\n");
    return 2;
  }
  IMB_MGR *mgr = alloc_mb_mgr(0);
  if (mgr == NULL) {
    fprintf(stderr, "mb_floor: alloc_mb_mgr failed\n");
    return 1;
  }
  IMB_ARCH arch = IMB_ARCH_NONE;
  init_mb_mgr_auto(mgr, &arch);
  if (imb_get_errno(mgr) != 0) {
    fprintf(stderr, "mb_floor: init_mb_mgr_auto: %s\n", imb_get_strerror(imb_get_errno(mgr)));
    return 1;
  }
  const char *arch_names[] = {"none", "no-aesni", "sse", "avx", "avx2", "avx512"};
  IMB_AES_KEYEXP_128(mgr, key, enc_keys, dec_keys);
  uint8_t block[64];
  memset(block, 0x36, sizeof block);
  for (size_t i = 0; i < sizeof key; i++) block[i] ^= key[i];
  IMB_SHA256_ONE_BLOCK(mgr, block, ipad_hash);
  memset(block, 0x5c, sizeof block);
  for (size_t i = 0; i < sizeof key; i++) block[i] ^= key[i];
  IMB_SHA256_ONE_BLOCK(mgr, block, opad_hash);

  static struct lanes l;
  const size_t sizes[] = {64, 256, 1024, 16384};
  for (int i = 0; i < MAX_LANES; i++) {
    l.buf[i] = aligned_alloc(64, 16384);
    memset(l.buf[i], 0xa5, 16384);
    memset(l.iv[i], i, 16);
  }
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    if (check_first_lane(mgr, &l, sizes[s]) != 0) {
      fprintf(stderr, "mb_floor: libipsec-mb's output differs from OpenSSL's at %zu bytes\n",
              sizes[s]);
      return 1;
    }
  printf("libipsec-mb %s, %s code (init_mb_mgr_auto); GB/s of payload, %.2f s per figure\n",
         imb_get_version_str(), arch <= IMB_ARCH_AVX512 ? arch_names[arch] : "?", seconds);
  const int lane_counts[] = {1, 4, 8, 16, 32};
  if (only_lanes != 0 && only_lanes != 1 && only_lanes != 4 && only_lanes != 8 &&
      only_lanes != 16 && only_lanes != 32) {
    fprintf(stderr, "mb_floor: --lanes must be 1, 4, 8, 16 or 32\n");
    return 2;
  }
  if (only_bytes != 0 && only_bytes != 64 && only_bytes != 256 && only_bytes != 1024 &&
      only_bytes != 16384) {
    fprintf(stderr, "mb_floor: --bytes must be 64, 256, 1024 or 16384\n");
    return 2;
  }
  for (int hash = 0; hash < 2; hash++) {
    printf("\n%-28s", hash ? "HMAC-SHA256, lanes" : "AES-128-CBC encrypt, lanes");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      if (only_bytes == 0 || (long)sizes[s] == only_bytes) printf(" %8zu B", sizes[s]);
    printf("\n");
    for (size_t c = 0; c < sizeof lane_counts / sizeof lane_counts[0]; c++) {
      if (only_lanes != 0 && lane_counts[c] != only_lanes) continue;
      printf("%-28d", lane_counts[c]);
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        if (only_bytes != 0 && (long)sizes[s] != only_bytes) continue;
        const double rate = measure(mgr, &l, lane_counts[c], sizes[s], hash, seconds);
        if (rate < 0) {
          fprintf(stderr, "\nmb_floor: a burst failed: %s\n",
                  imb_get_strerror(imb_get_errno(mgr)));
          return 1;
        }
        printf(" %10.2f", rate);
        fflush(stdout);
      }
      printf("\n");
    }
  }
  for (int i = 0; i < MAX_LANES; i++) free(l.buf[i]);
  free_mb_mgr(mgr);
  return 0;
}
