// What the AF_ALG driver reads from /proc/crypto and how it classifies
// kernel implementations; its kernel paths are tested in the guest (tests/vm).
#include <gtest/gtest.h>

#include <sstream>

#include "cryptoaccel/cryptoaccel.hpp"
#include "kernel/accelerators.hpp"
#include "kernel/crypto_names.hpp"
#include "kernel/proc_crypto.hpp"

namespace cryptoaccel::kernel {
namespace {

// The shape of /proc/crypto on Linux 6.1 (abridged).
constexpr const char* kSample = R"(name         : cbc(aes)
driver       : virtio_crypto_aes_cbc
module       : virtio_crypto
priority     : 150
refcnt       : 1
selftest     : passed
internal     : no
type         : skcipher
async        : yes
blocksize    : 16
min keysize  : 16
max keysize  : 32
ivsize       : 16
chunksize    : 16
walksize     : 16

name         : __cbc(aes)
driver       : __cbc-aes-aesni
module       : aesni_intel
priority     : 400
refcnt       : 1
selftest     : passed
internal     : yes
type         : skcipher
async        : no
blocksize    : 16
min keysize  : 16
max keysize  : 32
ivsize       : 16

name         : gcm(aes)
driver       : generic-gcm-aesni
module       : aesni_intel
priority     : 400
refcnt       : 1
selftest     : passed
internal     : no
type         : aead
async        : yes
blocksize    : 1
ivsize       : 12
maxauthsize  : 16
geniv        : <none>

name         : sha256
driver       : sha256-generic
module       : kernel
priority     : 100
refcnt       : 1
selftest     : unknown
internal     : no
type         : shash
blocksize    : 64
digestsize   : 32
)";

TEST(ProcCrypto, ParsesEveryBlockAndField) {
  std::istringstream in(kSample);
  const auto all = parse_proc_crypto(in);
  ASSERT_EQ(all.size(), 4u);
  const KernelImplementation& virtio = all[0];
  EXPECT_EQ(virtio.name, "cbc(aes)");
  EXPECT_EQ(virtio.driver, "virtio_crypto_aes_cbc");
  EXPECT_EQ(virtio.module, "virtio_crypto");
  EXPECT_EQ(virtio.priority, 150);
  EXPECT_TRUE(virtio.selftest_passed);
  EXPECT_TRUE(virtio.async);
  EXPECT_FALSE(virtio.internal);
  EXPECT_EQ(virtio.min_keysize, 16u);
  EXPECT_EQ(virtio.max_keysize, 32u);
  EXPECT_EQ(virtio.ivsize, 16u);
  EXPECT_TRUE(all[1].internal);
  EXPECT_EQ(all[2].type, "aead");
  EXPECT_EQ(all[2].maxauthsize, 16u);
  EXPECT_EQ(all[3].digestsize, 32u);
  EXPECT_FALSE(all[3].selftest_passed);  // "unknown" is not "passed"
}

TEST(ProcCrypto, EmptyOrGarbageGivesNothing) {
  std::istringstream empty("");
  EXPECT_TRUE(parse_proc_crypto(empty).empty());
  std::istringstream garbage("no colon here\n\n\n");
  EXPECT_TRUE(parse_proc_crypto(garbage).empty());
}

TEST(DriverKind, AcceleratorsAreHardwareCpuInstructionsAreSoftware) {
  EXPECT_EQ(kind_of({.driver = "virtio_crypto_aes_cbc", .module = "virtio_crypto"}),
            DriverKind::hardware);
  EXPECT_EQ(kind_of({.driver = "cbc-aes-caam", .module = "caamalg_desc"}), DriverKind::hardware);
  EXPECT_EQ(kind_of({.driver = "ecb-aes-sa2ul", .module = "sa2ul"}), DriverKind::hardware);
  EXPECT_EQ(kind_of({.driver = "cbc-aes-aesni", .module = "aesni_intel"}), DriverKind::software);
  EXPECT_EQ(kind_of({.driver = "cbc(aes-generic)", .module = "kernel"}), DriverKind::software);
  EXPECT_EQ(kind_of({.driver = "sha256-avx2", .module = "sha256_ssse3"}), DriverKind::software);
}

TEST(KernelNames, EveryCipherAeadDigestAndMacHasOne) {
  for (const Algorithm& a : algorithms()) {
    const auto kn = kernel_name(a.id);
    if (a.kind == AlgorithmKind::public_key) {
      EXPECT_FALSE(kn) << "AF_ALG has no akcipher type: " << a.name;
      continue;
    }
    ASSERT_TRUE(kn) << a.name;
    EXPECT_EQ(kn->type == SocketType::hash,
              a.kind == AlgorithmKind::digest || a.kind == AlgorithmKind::mac)
        << a.name;
  }
  EXPECT_EQ(kernel_name(AlgorithmId::aes_256_xts)->name, "xts(aes)");
  EXPECT_EQ(kernel_name(AlgorithmId::hmac_sha384)->name, "hmac(sha384)");
}

TEST(AfalgDriver, AbsentKernelSupportIsReportedNotFatal) {
  // On a kernel without AF_ALG (this host) the family is absent with a reason;
  // on one with it, it registers instances named afalg:<driver>.
  Framework framework;
  bool instances = false;
  for (const DriverInfo& d : framework.drivers()) instances |= d.name.starts_with("afalg:");
  bool absent = false;
  for (const AbsentDriver& a : framework.absent())
    if (a.family == "afalg") absent = !a.reason.empty();
  EXPECT_NE(instances, absent);
}

}  // namespace
}  // namespace cryptoaccel::kernel
