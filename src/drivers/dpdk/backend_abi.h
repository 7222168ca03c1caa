/* The boundary between the dpdk driver, which lives in the library, and its
 * backend, cryptoaccel-dpdk.so, the only object that links DPDK. Loading
 * DPDK's libraries costs every process milliseconds (their constructors,
 * dozens of DT_NEEDED entries), so the library dlopen()s the backend only
 * when a configuration asks for the driver; a process that does not pays
 * nothing. The boundary is plain C so that no C++ type, exception or
 * allocator crosses it; both sides are built from the same tree, and the
 * library refuses a backend of another version.
 *
 * Threads: start() and device_open() are serialised by the backend; a
 * queue pair belongs to the thread that acquired it until it releases it;
 * everything else may be called from any thread. */
#ifndef CRYPTOACCEL_DPDK_BACKEND_ABI_H
#define CRYPTOACCEL_DPDK_BACKEND_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The algorithms the backend maps onto DPDK's. The library maps its own
 * algorithm ids onto these (dpdk_algorithms.cpp). */
enum ca_dpdk_algorithm {
  CA_DPDK_AES_ECB,
  CA_DPDK_AES_CBC,
  CA_DPDK_AES_CTR,
  CA_DPDK_AES_XTS,
  CA_DPDK_DES_CBC,
  CA_DPDK_3DES_CBC,
  CA_DPDK_AES_GCM,
  CA_DPDK_CHACHA20_POLY1305,
  CA_DPDK_MD5,
  CA_DPDK_SHA1,
  CA_DPDK_SHA224,
  CA_DPDK_SHA256,
  CA_DPDK_SHA384,
  CA_DPDK_SHA512,
  CA_DPDK_HMAC_MD5,
  CA_DPDK_HMAC_SHA1,
  CA_DPDK_HMAC_SHA224,
  CA_DPDK_HMAC_SHA256,
  CA_DPDK_HMAC_SHA384,
  CA_DPDK_HMAC_SHA512,
  CA_DPDK_ALGORITHM_COUNT
};

enum ca_dpdk_direction { CA_DPDK_ENCRYPT, CA_DPDK_DECRYPT, CA_DPDK_DIGEST };

/* A length range as DPDK states it: min, max, and the step between (0: only
 * min). */
struct ca_dpdk_range {
  uint32_t min, max, step;
};

struct ca_dpdk_capability {
  int supported;
  struct ca_dpdk_range key, iv, digest, aad;
};

struct ca_dpdk_device {
  char name[64];        /* rte_cryptodev_name_get(): "crypto_aesni_mb0", "0000:00:04.0" */
  char driver[64];      /* the PMD: "crypto_aesni_mb" */
  int hardware;         /* RTE_CRYPTODEV_FF_HW_ACCELERATED */
  int by_reference;     /* the PMD reads the caller's memory itself (no DMA): no copies */
  uint32_t queue_pairs; /* the queue pairs the backend set up */
  uint32_t max_request; /* the largest request one operation takes */
  int usable;           /* 0: `unusable` says why */
  char unusable[160];
};

/* The parameters of one DPDK session: DPDK fixes the direction and the IV,
 * digest and AAD lengths per session. */
struct ca_dpdk_session_params {
  int algorithm; /* enum ca_dpdk_algorithm */
  int direction; /* enum ca_dpdk_direction */
  const uint8_t* key;
  uint32_t key_length;
  uint32_t iv_length;
  uint32_t digest_length;
  uint32_t aad_length;
};

/* One operation. Ciphers: `length` bytes of `in` into `out` (which may be
 * `in`). AEAD: also `aad`, and the tag in `digest` (written on encrypt, read
 * on decrypt). Digests and MACs: `length` bytes of `in`, the digest into
 * `digest`. */
struct ca_dpdk_job {
  const uint8_t* iv;
  const uint8_t* aad;
  const uint8_t* in;
  uint8_t* out;
  uint8_t* digest;
  uint32_t length;
  int status; /* CA_DPDK_OK on the way in; run() sets any other */
};

enum ca_dpdk_status {
  CA_DPDK_OK,
  CA_DPDK_AUTH_FAILED,
  CA_DPDK_FAILED,   /* the device failed the operation */
  CA_DPDK_TIMED_OUT /* not completed in time: the queue pair is retired */
};

struct ca_dpdk_backend {
  const char* version; /* the project version it was built from */

  /* Starts DPDK's EAL with `argv` (argv[0] is the program's name), once per
   * process; a process where the EAL already runs (started by the
   * application, or by an earlier call with other arguments) shares it,
   * and `message` says so. Returns 0 on success; otherwise -1 with the
   * reason in `message`. */
  int (*start)(int argc, char** argv, char* message, size_t message_size);

  /* The crypto devices EAL found. */
  int (*device_count)(void);
  /* Configures and starts device `id` (once per process) and describes
   * it. Returns 0; -1 when there is no such device. */
  int (*device_open)(int id, struct ca_dpdk_device* out);
  /* What device `id` offers for `algorithm`. */
  void (*capability)(int id, int algorithm, struct ca_dpdk_capability* out);

  /* Sessions: null on failure (message set). */
  void* (*session_create)(int id, const struct ca_dpdk_session_params* params, char* message,
                          size_t message_size);
  void (*session_free)(int id, void* session);

  /* A queue pair of device `id` for this thread alone, waiting for one
   * when all are in use; null when the device is gone. */
  void* (*queue_pair_acquire)(int id);
  void (*queue_pair_release)(void* queue_pair);
  /* Runs `count` jobs (at most the depth the backend set up: 64), all of
   * `session`, as one burst and waits up to `deadline_ns` for them all.
   * The jobs arrive with the status CA_DPDK_OK, which run() leaves on
   * those that succeeded (no store per job in the common case) and
   * replaces on the others. Returns how many succeeded. */
  size_t (*run)(void* queue_pair, void* session, struct ca_dpdk_job* jobs, size_t count,
                uint64_t deadline_ns);
};

#define CA_DPDK_MAX_BURST 64

/* The backend's one exported symbol. */
#define CA_DPDK_BACKEND_SYMBOL "cryptoaccel_dpdk_backend"
typedef const struct ca_dpdk_backend* (*ca_dpdk_backend_entry)(void);

#ifdef __cplusplus
}
#endif

#endif
