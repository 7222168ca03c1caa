/* The /dev/crypto ABI of cryptodev-linux 1.14, as a program written for
 * that module sees it: written for these tests from the documented layouts
 * and ioctl numbers, independent of the cryptoaccel library (the tests check
 * that the server speaks the ABI, not our idea of it). The structs hold
 * pointers, so a 32-bit build (gcc -m32, tests/vm/build-m32) gets the 32-bit
 * layout and its ioctl numbers, as a 32-bit program compiled against the
 * module's header does; the sizes are checked for both. */
#ifndef CRYPTOACCEL_TEST_CRYPTODEV_ABI_H
#define CRYPTOACCEL_TEST_CRYPTODEV_ABI_H

#include <linux/ioctl.h>
#include <stdint.h>

enum {
  CRYPTO_DES_CBC = 1,
  CRYPTO_3DES_CBC = 2,
  CRYPTO_MD5_HMAC = 6,
  CRYPTO_SHA1_HMAC = 7,
  CRYPTO_AES_CBC = 11,
  CRYPTO_MD5 = 13,
  CRYPTO_SHA1 = 14,
  CRYPTO_SHA2_256_HMAC = 18,
  CRYPTO_AES_CTR = 21,
  CRYPTO_AES_XTS = 22,
  CRYPTO_AES_ECB = 23,
  CRYPTO_AES_GCM = 50,
  CRYPTO_SHA2_256 = 104,
  CRYPTO_SHA2_512 = 106,
};

#define COP_ENCRYPT 0
#define COP_DECRYPT 1
#define COP_FLAG_UPDATE (1 << 0)
#define COP_FLAG_FINAL (1 << 1)
#define COP_FLAG_WRITE_IV (1 << 2)
#define COP_FLAG_RESET (1 << 6) /* with COP_FLAG_UPDATE: start a new hash */
#define SIOP_FLAG_KERNEL_DRIVER_ONLY 1

struct session_op {
  uint32_t cipher;
  uint32_t mac;
  uint32_t keylen;
  uint8_t *key;
  uint32_t mackeylen;
  uint8_t *mackey;
  uint32_t ses;
};

struct crypt_op {
  uint32_t ses;
  uint16_t op;
  uint16_t flags;
  uint32_t len;
  uint8_t *src;
  uint8_t *dst;
  uint8_t *mac;
  uint8_t *iv;
};

struct crypt_auth_op {
  uint32_t ses;
  uint16_t op;
  uint16_t flags;
  uint32_t len;
  uint32_t auth_len;
  uint8_t *auth_src;
  uint8_t *src;
  uint8_t *dst;
  uint8_t *tag;
  uint32_t tag_len;
  uint8_t *iv;
  uint32_t iv_len;
};

struct alg_info {
  char cra_name[64];
  char cra_driver_name[64];
};

struct session_info_op {
  uint32_t ses;
  struct alg_info cipher_info;
  struct alg_info hash_info;
  uint16_t alignmask;
  uint32_t flags;
};

#define CIOCGSESSION _IOWR('c', 102, struct session_op)
#define CIOCFSESSION _IOW('c', 103, uint32_t)
#define CIOCCRYPT _IOWR('c', 104, struct crypt_op)
#define CIOCGSESSINFO _IOWR('c', 107, struct session_info_op)
#define CIOCAUTHCRYPT _IOWR('c', 109, struct crypt_auth_op)

/* OCF's asymmetric interface (OCF's cryptodev.h, and cryptodev-linux's
 * crypto/cryptodev.h, whose module does not serve it). */
struct crparam {
  uint8_t *crp_p;
  uint32_t crp_nbits;
};
#define CRK_MAXPARAM 8
struct crypt_kop {
  uint32_t crk_op;
  uint32_t crk_status;
  uint16_t crk_iparams;
  uint16_t crk_oparams;
  uint32_t crk_pad1;
  struct crparam crk_param[CRK_MAXPARAM];
};
enum { CRK_MOD_EXP = 0, CRK_MOD_EXP_CRT = 1, CRK_DSA_SIGN = 2 };
#define CRF_MOD_EXP (1 << CRK_MOD_EXP)
#define CRF_MOD_EXP_CRT (1 << CRK_MOD_EXP_CRT)
#define CIOCKEY _IOWR('c', 105, struct crypt_kop)
#define CIOCASYMFEAT _IOR('c', 106, uint32_t)

#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct session_op) == 48, "session_op");
_Static_assert(sizeof(struct crypt_op) == 48, "crypt_op");
_Static_assert(sizeof(struct crypt_auth_op) == 72, "crypt_auth_op");
_Static_assert(sizeof(struct crypt_kop) == 144, "crypt_kop");
#else
_Static_assert(sizeof(struct session_op) == 28, "session_op");
_Static_assert(sizeof(struct crypt_op) == 28, "crypt_op");
_Static_assert(sizeof(struct crypt_auth_op) == 44, "crypt_auth_op");
_Static_assert(sizeof(struct crypt_kop) == 80, "crypt_kop");
#endif
_Static_assert(sizeof(struct session_info_op) == 268, "session_info_op");

#endif
