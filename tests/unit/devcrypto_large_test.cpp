// Requests larger than one round of a CUSE ioctl (32 pages each way): the
// server reads their input from the caller's memory and writes the output
// there itself (client_memory.hpp), up to kMaxData. Driven as the kernel's
// CUSE would (devcrypto_kernel_sim.hpp, which refuses retry pieces over 32
// pages as the kernel does), with expected bytes from OpenSSL's libcrypto.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "abi/cryptodev.hpp"
#include "devcrypto/protocol.hpp"
#include "devcrypto_fixture.hpp"
#include "devcrypto_kernel_sim.hpp"
#include "test_util.hpp"

namespace cryptoaccel::test {
namespace {

using namespace cryptodev;
using devcrypto::kMaxData;
using devcrypto::kMaxRoundBytes;

const ByteVector kKey = hex("2b7e151628aed2a6abf7158809cf4f3c");
const ByteVector kIv = hex("000102030405060708090a0b0c0d0e0f");

ByteVector openssl_cbc(const ByteVector& in) {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  ByteVector out(in.size());
  int n = 0;
  EVP_EncryptInit_ex(ctx, EVP_aes_128_cbc(), nullptr, kKey.data(), kIv.data());
  EVP_CIPHER_CTX_set_padding(ctx, 0);
  EVP_EncryptUpdate(ctx, out.data(), &n, in.data(), static_cast<int>(in.size()));
  EVP_CIPHER_CTX_free(ctx);
  return out;
}

ByteVector openssl_gcm(const ByteVector& key, const ByteVector& iv, const ByteVector& aad,
                       const ByteVector& in) {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  ByteVector out(in.size() + 16);
  int n = 0;
  EVP_EncryptInit_ex(ctx, EVP_aes_128_gcm(), nullptr, key.data(), iv.data());
  EVP_EncryptUpdate(ctx, nullptr, &n, aad.data(), static_cast<int>(aad.size()));
  EVP_EncryptUpdate(ctx, out.data(), &n, in.data(), static_cast<int>(in.size()));
  EVP_EncryptFinal_ex(ctx, out.data() + n, &n);
  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, out.data() + in.size());
  EVP_CIPHER_CTX_free(ctx);
  return out;
}

class DevcryptoLarge : public DevcryptoServerTest {
 protected:
  SimulatedIoctl ioctl(unsigned long cmd, void* arg, bool memory = true) {
    // (simulate_ioctl hands what a worker defers to a second call, as the
    // server's deferred threads do; `deferred` counts it.)
    return simulate_ioctl(service_, client_, cmd, arg, 1, memory);
  }

  std::uint32_t open(std::uint32_t cipher, const ByteVector& key, std::uint32_t mac = 0) {
    SessionOp op{};
    op.cipher = cipher;
    op.keylen = static_cast<std::uint32_t>(key.size());
    op.key = key.empty() ? 0 : address(key.data());
    op.mac = mac;
    EXPECT_EQ(ioctl(kCiocGSession, &op).result, 0);
    return op.ses;
  }
  CryptOp cbc(std::uint32_t ses, const ByteVector& in, ByteVector& out, ByteVector& iv) {
    CryptOp op{.ses = ses, .op = kEncrypt, .len = static_cast<std::uint32_t>(in.size())};
    op.src = address(in.data());
    op.dst = address(out.data());
    op.iv = address(iv.data());
    return op;
  }
};

// CIOCCRYPT reads the struct, the IV and src: sizeof(CryptOp) + 16 + len.
constexpr std::size_t kLargestInRound = kMaxRoundBytes - sizeof(CryptOp) - 16;

TEST_F(DevcryptoLarge, CbcAcrossTheRoundBoundMatchesOpenssl) {
  const std::uint32_t ses = open(kAesCbc, kKey);
  for (std::size_t len :
       {kLargestInRound, kLargestInRound + 16, std::size_t{256 * 1024}, kMaxData}) {
    const ByteVector plain = random_bytes(len);
    ByteVector out(len), iv = kIv;
    CryptOp op = cbc(ses, plain, out, iv);
    const SimulatedIoctl run = ioctl(kCiocCrypt, &op);
    ASSERT_EQ(run.result, 0) << len;
    EXPECT_EQ(run.rounds, len <= kLargestInRound ? 3 : 2)
        << len << ": three rounds while they carry it, then through the caller's memory";
    EXPECT_EQ(run.deferred, len <= kLargestInRound ? 0 : 1)
        << len << ": the caller's memory is never reached from a shared worker";
    EXPECT_EQ(out, openssl_cbc(plain)) << len;
  }
}

TEST_F(DevcryptoLarge, InPlaceAndWriteIvWorkThroughTheCallersMemory) {
  const std::uint32_t ses = open(kAesCbc, kKey);
  const ByteVector plain = random_bytes(300 * 1024);
  ByteVector data = plain, iv = kIv;
  CryptOp op = cbc(ses, data, data, iv);
  op.flags = kFlagWriteIv;
  ASSERT_EQ(ioctl(kCiocCrypt, &op).result, 0);
  const ByteVector expected = openssl_cbc(plain);
  EXPECT_EQ(data, expected);
  EXPECT_EQ(iv, ByteVector(expected.end() - 16, expected.end())) << "the last block, for chaining";
}

TEST_F(DevcryptoLarge, AboveTheBoundOrWithoutTheCallersMemoryIsEmsgsize) {
  const std::uint32_t ses = open(kAesCbc, kKey);
  ByteVector plain(kMaxData + 16), out(kMaxData + 16), iv = kIv;
  CryptOp op = cbc(ses, plain, out, iv);
  EXPECT_EQ(ioctl(kCiocCrypt, &op).result, -EMSGSIZE) << "above kMaxData";
  op.len = kLargestInRound + 16;
  EXPECT_EQ(ioctl(kCiocCrypt, &op, false).result, -EMSGSIZE)
      << "a server that may not reach the caller's memory serves one round at most";
  op.len = kLargestInRound;
  EXPECT_EQ(ioctl(kCiocCrypt, &op, false).result, 0);
  EXPECT_EQ(devcrypto::ThreadMemory(0).read({}, {}), 0) << "nothing to move";
  std::uint8_t byte = 0;
  EXPECT_EQ(devcrypto::ThreadMemory(0).read(std::vector<devcrypto::ClientIov>{{address(&byte), 1}},
                                            {&byte, 1}),
            EMSGSIZE)
      << "a caller not visible from the server's pid namespace";
}

TEST_F(DevcryptoLarge, BadBuffersFaultAsTheKernelsCopyWould) {
  const long page = sysconf(_SC_PAGESIZE);
  const std::size_t len = 64 * static_cast<std::size_t>(page);  // 256 KiB: beyond a round
  void* map = mmap(nullptr, 2 * len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  auto* bytes = static_cast<std::uint8_t*>(map);
  const std::uint32_t ses = open(kAesCbc, kKey);
  ByteVector iv = kIv;
  CryptOp op{.ses = ses, .op = kEncrypt, .len = static_cast<std::uint32_t>(len)};
  op.src = address(bytes);
  op.dst = address(bytes + len);
  op.iv = address(iv.data());
  ASSERT_EQ(ioctl(kCiocCrypt, &op).result, 0);
  ASSERT_EQ(mprotect(bytes + len, len, PROT_READ), 0);
  EXPECT_EQ(ioctl(kCiocCrypt, &op).result, -EFAULT) << "dst read-only";
  ASSERT_EQ(mprotect(bytes + len / 2, len / 2, PROT_NONE), 0);
  EXPECT_EQ(ioctl(kCiocCrypt, &op).result, -EFAULT) << "src half unmapped";
  munmap(map, 2 * len);
}

TEST_F(DevcryptoLarge, AStructChangedBeforeTheServerReadsItIsRefused) {
  // Round 2's struct came through the kernel; the server reads it again
  // with the buffers. A client that changed it meanwhile gets EINVAL.
  const std::uint32_t ses = open(kAesCbc, kKey);
  ByteVector plain(kMaxData), out(kMaxData), iv = kIv;
  CryptOp in_memory = cbc(ses, plain, out, iv);
  CryptOp seen = in_memory;
  seen.len = static_cast<std::uint32_t>(kLargestInRound + 16);
  in_memory.len = static_cast<std::uint32_t>(kLargestInRound + 32);
  devcrypto::ThreadMemory own(static_cast<pid_t>(syscall(SYS_gettid)));
  const devcrypto::IoctlCall call{.cmd = kCiocCrypt,
                                  .arg = address(&in_memory),
                                  .in = {reinterpret_cast<const std::uint8_t*>(&seen), sizeof seen},
                                  .caller = 1,
                                  .memory = &own};
  const devcrypto::IoctlReply reply = devcrypto::handle_ioctl(service_, client_, call);
  EXPECT_EQ(reply.kind, devcrypto::IoctlReply::Kind::error);
  EXPECT_EQ(reply.error, EINVAL);
  EXPECT_EQ(out, ByteVector(kMaxData, 0)) << "nothing written";
}

TEST_F(DevcryptoLarge, GcmSealsAndOpensALargeRecord) {
  const ByteVector key = random_bytes(16), iv = random_bytes(12), aad = random_bytes(4096);
  const ByteVector plain = random_bytes(400 * 1024);
  const std::uint32_t ses = open(kAesGcm, key);
  ByteVector sealed(plain.size() + 16), aad_copy = aad, iv_copy = iv;
  CryptAuthOp op{.ses = ses,
                 .op = kEncrypt,
                 .len = static_cast<std::uint32_t>(plain.size()),
                 .auth_len = static_cast<std::uint32_t>(aad.size())};
  op.auth_src = address(aad_copy.data());
  op.src = address(plain.data());
  op.dst = address(sealed.data());
  op.iv = address(iv_copy.data());
  op.iv_len = 12;
  const SimulatedIoctl run = ioctl(kCiocAuthCrypt, &op);
  ASSERT_EQ(run.result, 0);
  EXPECT_EQ(run.rounds, 2);
  EXPECT_EQ(sealed, openssl_gcm(key, iv, aad, plain));
  EXPECT_EQ(op.len, plain.size() + 16) << "the output length comes back in len";

  ByteVector opened(plain.size());
  CryptAuthOp open_op = op;
  open_op.op = kDecrypt;
  open_op.len = static_cast<std::uint32_t>(sealed.size());
  open_op.src = address(sealed.data());
  open_op.dst = address(opened.data());
  ASSERT_EQ(ioctl(kCiocAuthCrypt, &open_op).result, 0);
  EXPECT_EQ(opened, plain);
  sealed[1000] ^= 1;
  std::fill(opened.begin(), opened.end(), 0);
  open_op.len = static_cast<std::uint32_t>(sealed.size());
  EXPECT_EQ(ioctl(kCiocAuthCrypt, &open_op).result, -EBADMSG);
  EXPECT_EQ(opened, ByteVector(plain.size(), 0)) << "no plaintext is released";
}

TEST_F(DevcryptoLarge, Sha256OfAMebibyteMatchesOpenssl) {
  const std::uint32_t ses = open(0, {}, kSha256);
  const ByteVector data = random_bytes(kMaxData);
  ByteVector digest(32), expected(32);
  CryptOp op{.ses = ses, .op = kEncrypt, .len = static_cast<std::uint32_t>(data.size())};
  op.src = address(data.data());
  op.mac = address(digest.data());
  ASSERT_EQ(ioctl(kCiocCrypt, &op).result, 0);
  unsigned n = 0;
  EVP_Digest(data.data(), data.size(), expected.data(), &n, EVP_sha256(), nullptr);
  EXPECT_EQ(digest, expected);
}

TEST_F(DevcryptoLarge, AsynchronousRequestsBeyondARoundAreFetchedWithTheirOutput) {
  // cryptodev-linux's async_speed: the NULL cipher up to 256 KiB.
  const std::uint32_t null = open(kNull, {});
  const std::uint32_t aes = open(kAesCbc, kKey);
  const ByteVector a_in = random_bytes(256 * 1024), b_in = random_bytes(200 * 1024);
  ByteVector a_out(a_in.size()), b_out(b_in.size()), iv = kIv;
  CryptOp a{.ses = null, .op = kEncrypt, .len = static_cast<std::uint32_t>(a_in.size())};
  a.src = address(a_in.data());
  a.dst = address(a_out.data());
  CryptOp b = cbc(aes, b_in, b_out, iv);
  ASSERT_EQ(ioctl(kCiocAsyncCrypt, &a).result, 0);
  ASSERT_EQ(ioctl(kCiocAsyncCrypt, &b).result, 0);
  EXPECT_EQ(a_out, ByteVector(a_out.size(), 0)) << "output is written by the fetch";
  CryptOp fetched{};
  ASSERT_EQ(ioctl(kCiocAsyncFetch, &fetched).result, 0);
  EXPECT_EQ(fetched.ses, null);
  EXPECT_EQ(a_out, a_in);
  ASSERT_EQ(ioctl(kCiocAsyncFetch, &fetched).result, 0);
  EXPECT_EQ(fetched.ses, aes);
  EXPECT_EQ(b_out, openssl_cbc(b_in));
  EXPECT_EQ(ioctl(kCiocAsyncFetch, &fetched).result, -EBUSY);

  EXPECT_EQ(ioctl(kCiocAsyncCrypt, &a, false).result, -EMSGSIZE)
      << "refused at once by a server that could not write it back";
  EXPECT_EQ(ioctl(kCiocAsyncFetch, &fetched).result, -EBUSY) << "and not queued";
}

}  // namespace
}  // namespace cryptoaccel::test
