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
  int synchronous;      /* in-place requests run in the caller's thread, through DPDK's
                           CPU crypto API, with no queue pair (run_synchronous) */
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

/* Where the fields of the library's requests lie, so that the backend
 * reads a batch's requests where they are: a copy of each into a job of
 * the backend's own cost a 256-byte request about 2% of its time. Offsets
 * are in bytes from a request's start, of `const uint8_t*` pointers and of
 * one size_t. Ciphers: `in_length` bytes of `in` into `out` (which may be
 * `in`). AEAD: also `aad`, and the tag at `digest` (written on encrypt,
 * read on decrypt). Digests and MACs: `in_length` bytes of `in`, the
 * digest into `digest`; `out` is not read. A cipher's `digest` and a
 * hash's `iv` and `aad` are not read either; where the session's IV or AAD
 * length is 0 neither is that pointer. */
struct ca_dpdk_request_layout {
  size_t stride; /* from one request to the next */
  size_t iv, aad, in, in_length, out, digest;
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
  /* Runs `count` requests (at most the depth the backend set up: 64) laid
   * out as `layout` says from `requests` on, all of `session`, as one burst,
   * and waits up to `deadline_ns` for them all. Returns how many succeeded;
   * when fewer than `count`, `statuses[i]` says how request i ended (enum
   * ca_dpdk_status), and otherwise `statuses` is not written (no store per
   * request in the common case). */
  size_t (*run)(void* queue_pair, void* session, const void* requests,
                const struct ca_dpdk_request_layout* layout, size_t count, uint64_t deadline_ns,
                int* statuses);
  /* Runs the same burst in the calling thread through DPDK's synchronous
   * CPU crypto API, with no queue pair, where device `id` offers it (the
   * PMDs that compute with the CPU: aesni_mb, aesni_gcm), every request is
   * in place (a cipher's `out` is its `in`; digests always are) and this
   * thread may (see run.cpp: DPDK gives each thread that uses the API a
   * manager it never frees, so a process's first threads only). Returns 0
   * when it ran them, with `*succeeded` and `statuses` as run() sets them
   * (a CA_DPDK_TIMED_OUT never); -1, having touched nothing, when the
   * burst must go through a queue pair instead. */
  int (*run_synchronous)(int id, void* session, const void* requests,
                         const struct ca_dpdk_request_layout* layout, size_t count, int* statuses,
                         size_t* succeeded);
};

/* Part of the version string both sides compare: a backend built with
 * another table is refused, whatever its release. */
#define CA_DPDK_ABI_REVISION "2"

#define CA_DPDK_MAX_BURST 64

/* The backend's one exported symbol. */
#define CA_DPDK_BACKEND_SYMBOL "cryptoaccel_dpdk_backend"
typedef const struct ca_dpdk_backend* (*ca_dpdk_backend_entry)(void);

#ifdef __cplusplus
}
#endif

#endif
