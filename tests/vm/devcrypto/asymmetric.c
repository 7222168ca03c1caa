/* OCF's asymmetric interface through /dev/crypto, as an old program written
 * to it uses it (OpenSSL 1.0's cryptodev engine sent RSA this way): the
 * structures are declared here from OCF's header alone, the numbers are
 * little-endian byte strings (`bn2crparam`), and libcrypto only makes the
 * keys and checks the answers (BN_mod_exp).
 *   CIOCASYMFEAT: CRF_MOD_EXP | CRF_MOD_EXP_CRT
 *   CRK_MOD_EXP_CRT (x, p, q, dP, dQ, qInv) = x^d mod n, at 1024 bits (the
 *     server's own arithmetic) and 2048 and 3072 (the framework's RSA)
 *   CRK_MOD_EXP (y, e, n) = y^e mod n gives x back; with a private-sized
 *     exponent as DH sends it
 *   refusals: wrong counts (EINVAL), DSA (EOPNOTSUPP), too many parameters
 *     (EFBIG), a base not below the modulus (EINVAL), each leaving the
 *     output untouched
 * Usage: asymmetric [DEVICE [BITS...]] (default: 1024 2048 3072; the
 * 32-bit build runs 1024 and 2048, one of each path: its libcrypto makes a
 * 3072-bit key slowly in the emulated guest) */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "check.h"
#include "cryptodev_abi.h"


static int fd;

/* A number as the engine's bn2crparam wrote it: little-endian, its bits. */
static struct crparam param_of(const BIGNUM* bn) {
  struct crparam p;
  const int bytes = BN_num_bytes(bn);
  p.crp_p = calloc((size_t)(bytes ? bytes : 1), 1);
  BN_bn2lebinpad(bn, p.crp_p, bytes);
  p.crp_nbits = (uint32_t)BN_num_bits(bn);
  return p;
}

/* Runs `op` on `in[0..count)`; the answer in a `bytes`-byte output, or NULL
 * when the ioctl failed (errno in *error). */
static BIGNUM* key_op(uint32_t op, const BIGNUM** in, int count, int bytes, int* error) {
  struct crypt_kop kop = {0};
  kop.crk_op = op;
  kop.crk_iparams = (uint16_t)count;
  kop.crk_oparams = 1;
  for (int i = 0; i < count; i++) kop.crk_param[i] = param_of(in[i]);
  uint8_t* out = calloc((size_t)bytes, 1);
  kop.crk_param[count].crp_p = out;
  kop.crk_param[count].crp_nbits = (uint32_t)bytes * 8;
  BIGNUM* result = NULL;
  *error = 0;
  if (ioctl(fd, CIOCKEY, &kop) == 0) {
    CHECK(kop.crk_status == 0, "CIOCKEY op %u: crk_status %u", op, kop.crk_status);
    result = BN_lebin2bn(out, bytes, NULL);
  } else {
    *error = errno;
    int untouched = 1;
    for (int i = 0; i < bytes; i++) untouched &= out[i] == 0;
    CHECK(untouched, "CIOCKEY op %u refused (%s) but wrote its output", op, strerror(errno));
  }
  for (int i = 0; i < count; i++) free(kop.crk_param[i].crp_p);
  free(out);
  return result;
}

static BIGNUM* param(EVP_PKEY* key, const char* name) {
  BIGNUM* bn = NULL;
  if (EVP_PKEY_get_bn_param(key, name, &bn) != 1) {
    fprintf(stderr, "asymmetric: no %s in the key\n", name);
    exit(2);
  }
  return bn;
}

static void rsa_round_trip(unsigned bits) {
  EVP_PKEY* key = EVP_RSA_gen(bits);
  if (key == NULL) {
    fprintf(stderr, "asymmetric: cannot make a %u-bit RSA key\n", bits);
    exit(2);
  }
  BIGNUM *n = param(key, OSSL_PKEY_PARAM_RSA_N), *e = param(key, OSSL_PKEY_PARAM_RSA_E);
  BIGNUM* d = param(key, OSSL_PKEY_PARAM_RSA_D);
  BIGNUM *p = param(key, OSSL_PKEY_PARAM_RSA_FACTOR1), *q = param(key, OSSL_PKEY_PARAM_RSA_FACTOR2);
  BIGNUM* dp = param(key, OSSL_PKEY_PARAM_RSA_EXPONENT1);
  BIGNUM* dq = param(key, OSSL_PKEY_PARAM_RSA_EXPONENT2);
  BIGNUM* qinv = param(key, OSSL_PKEY_PARAM_RSA_COEFFICIENT1);
  BN_CTX* ctx = BN_CTX_new();
  BIGNUM *x = BN_new(), *expected = BN_new();
  const int bytes = BN_num_bytes(n);
  int error = 0;

  for (int round = 0; round < 3; round++) {
    BN_rand_range(x, n);
    BN_mod_exp(expected, x, d, n, ctx);
    const BIGNUM* crt_in[6] = {x, p, q, dp, dq, qinv};
    BIGNUM* y = key_op(CRK_MOD_EXP_CRT, crt_in, 6, bytes, &error);
    CHECK(y != NULL && BN_cmp(y, expected) == 0, "%u bits: CRK_MOD_EXP_CRT is not x^d mod n (%s)",
          bits, y ? "wrong answer" : strerror(error));
    if (y == NULL) continue;
    const BIGNUM* exp_in[3] = {y, e, n};
    BIGNUM* back = key_op(CRK_MOD_EXP, exp_in, 3, bytes, &error);
    CHECK(back != NULL && BN_cmp(back, x) == 0, "%u bits: CRK_MOD_EXP with e does not give x (%s)",
          bits, back ? "wrong answer" : strerror(error));
    /* A private-sized exponent, as DH and RSA without CRT parts send it. */
    const BIGNUM* private_in[3] = {x, d, n};
    BIGNUM* z = key_op(CRK_MOD_EXP, private_in, 3, bytes, &error);
    CHECK(z != NULL && BN_cmp(z, expected) == 0, "%u bits: CRK_MOD_EXP with d (%s)", bits,
          z ? "wrong answer" : strerror(error));
    BN_free(y);
    BN_free(back);
    BN_free(z);
  }

  /* Refusals, each with nothing written. */
  const BIGNUM* three[3] = {x, e, n};
  BIGNUM* r = key_op(CRK_MOD_EXP_CRT, three, 3, bytes, &error);
  CHECK(r == NULL && error == EINVAL, "%u bits: CRK_MOD_EXP_CRT with 3 inputs: %s", bits,
        r ? "served" : strerror(error));
  BN_free(r);
  const BIGNUM* dsa[5] = {x, p, q, e, d};
  struct crypt_kop kop = {0};
  kop.crk_op = CRK_DSA_SIGN;
  kop.crk_iparams = 5;
  kop.crk_oparams = 2;
  struct crparam owned[5];
  uint8_t out1[64] = {0}, out2[64] = {0};
  for (int i = 0; i < 5; i++) kop.crk_param[i] = owned[i] = param_of(dsa[i]);
  kop.crk_param[5] = (struct crparam){out1, 512};
  kop.crk_param[6] = (struct crparam){out2, 512};
  CHECK(ioctl(fd, CIOCKEY, &kop) == -1 && errno == EOPNOTSUPP, "CRK_DSA_SIGN: %s", strerror(errno));
  kop.crk_op = CRK_MOD_EXP;
  kop.crk_iparams = 8;
  kop.crk_oparams = 1;
  CHECK(ioctl(fd, CIOCKEY, &kop) == -1 && errno == EFBIG, "9 parameters: %s", strerror(errno));
  for (int i = 0; i < 5; i++) free(owned[i].crp_p);
  BIGNUM* too_big = BN_dup(n);
  BN_add_word(too_big, 1);
  const BIGNUM* above[3] = {too_big, e, n};
  r = key_op(CRK_MOD_EXP, above, 3, bytes, &error);
  CHECK(r == NULL && error == EINVAL, "%u bits: a base above the modulus: %s", bits,
        r ? "served" : strerror(error));
  BN_free(r);

  printf("asymmetric: %u bits: CRK_MOD_EXP_CRT and CRK_MOD_EXP agree with BN_mod_exp\n", bits);
  BN_free(too_big);
  BN_free(x);
  BN_free(expected);
  BN_CTX_free(ctx);
  BN_free(n);
  BN_free(e);
  BN_clear_free(d);
  BN_clear_free(p);
  BN_clear_free(q);
  BN_clear_free(dp);
  BN_clear_free(dq);
  BN_clear_free(qinv);
  EVP_PKEY_free(key);
}

int main(int argc, char** argv) {
  const char* device = argc > 1 ? argv[1] : "/dev/crypto";
  fd = open(device, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "asymmetric: %s: %s\n", device, strerror(errno));
    return 2;
  }
  uint32_t features = 0;
  CHECK(ioctl(fd, CIOCASYMFEAT, &features) == 0, "CIOCASYMFEAT: %s", strerror(errno));
  CHECK(features == (CRF_MOD_EXP | CRF_MOD_EXP_CRT), "CIOCASYMFEAT: 0x%x", features);
  if (argc > 2) {
    for (int i = 2; i < argc; i++) rsa_round_trip((unsigned)strtoul(argv[i], NULL, 10));
  } else {
    const unsigned sizes[] = {1024, 2048, 3072};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) rsa_round_trip(sizes[i]);
  }
  close(fd);
  return finish("asymmetric");
}
