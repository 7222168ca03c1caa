// CIOCKEY (OCF's asymmetric interface) through the devcrypto server's
// protocol, driven as the kernel's CUSE would (devcrypto_kernel_sim.hpp):
// known answers from RFC 8017's and pyca's OAEP vectors (CRT gives the
// encoded message c^d mod n, which decodes to the vector's message, and
// MOD_EXP gives c back from it), a differential run against OpenSSL's
// BN_mod_exp over row and other sizes, which path served each request, and
// every malformed request refused with nothing written.
#include <gtest/gtest.h>
#include <openssl/bn.h>
#include <openssl/rand.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "abi/cryptodev.hpp"
#include "cryptoaccel/driver/rsa_padding.hpp"
#include "devcrypto/key_operations.hpp"
#include "devcrypto/protocol.hpp"
#include "devcrypto_fixture.hpp"
#include "devcrypto_kernel_sim.hpp"
#include "openssl_objects.hpp"
#include "test_util.hpp"

namespace cryptoaccel::test {
namespace {

using namespace cryptodev;
namespace fs = std::filesystem;

using Ctx = BnCtx;

Bn from_be(const ByteVector& be) {
  return Bn(BN_bin2bn(be.data(), static_cast<int>(be.size()), nullptr));
}
Bn from_le(const ByteVector& le) {
  return Bn(BN_lebin2bn(le.data(), static_cast<int>(le.size()), nullptr));
}
// What OpenSSL 1.0's bn2crparam wrote: little-endian, BN_num_bits bits.
ByteVector to_le(const BIGNUM* a) {
  ByteVector le(static_cast<std::size_t>(BN_num_bytes(a)));
  BN_bn2lebinpad(a, le.data(), static_cast<int>(le.size()));
  return le;
}
ByteVector to_be(const BIGNUM* a, std::size_t size) {
  ByteVector be(size);
  BN_bn2binpad(a, be.data(), static_cast<int>(size));
  return be;
}
Bn random_bits(int bits, bool odd, bool top) {
  Bn r(BN_new());
  BN_rand(r.get(), bits, top ? BN_RAND_TOP_ONE : BN_RAND_TOP_ANY,
          odd ? BN_RAND_BOTTOM_ODD : BN_RAND_BOTTOM_ANY);
  return r;
}
Bn random_below(const BIGNUM* n) {
  Bn r(BN_new());
  BN_rand_range(r.get(), n);
  return r;
}

// One CIOCKEY request and the buffers it points to.
class KeyRequest {
 public:
  explicit KeyRequest(std::uint32_t op) { kop_.crk_op = op; }
  // The buffers stay where they are when a request moves; a copy would not.
  KeyRequest(const KeyRequest&) = delete;
  KeyRequest(KeyRequest&&) = default;
  KeyRequest& operator=(KeyRequest&&) = default;
  // Zero as one byte of one bit: a number of 0 bits is refused.
  KeyRequest& in(const BIGNUM* a) {
    return BN_is_zero(a) ? in_bytes({0}, 1)
                         : in_bytes(to_le(a), static_cast<std::uint32_t>(BN_num_bits(a)));
  }
  KeyRequest& in_bytes(ByteVector le, std::uint32_t nbits) {
    buffers_.push_back(std::move(le));
    CrParam& p = kop_.crk_param[kop_.crk_iparams++];
    p.crp_p = reinterpret_cast<std::uintptr_t>(buffers_.back().data());
    p.crp_nbits = nbits;
    return *this;
  }
  // The output: `bytes` bytes, filled with 0xee to show what was written.
  KeyRequest& out(std::size_t bytes) {
    buffers_.push_back(ByteVector(bytes, 0xee));
    out_ = &buffers_.back();
    CrParam& p = kop_.crk_param[kop_.crk_iparams + kop_.crk_oparams++];
    p.crp_p = reinterpret_cast<std::uintptr_t>(out_->data());
    p.crp_nbits = static_cast<std::uint32_t>(bytes * 8);
    return *this;
  }
  CryptKop& kop() { return kop_; }
  ByteVector& result() { return *out_; }
  bool untouched() const {
    return *out_ == ByteVector(out_->size(), 0xee) && kop_.crk_status == 0x5a5a;
  }

 private:
  CryptKop kop_{.crk_status = 0x5a5a};
  std::deque<ByteVector> buffers_;
  ByteVector* out_ = nullptr;
};

class DevcryptoKey : public DevcryptoServerTest {
 protected:
  int ioctl(unsigned long cmd, void* arg, int* rounds = nullptr, int* deferred = nullptr) {
    const SimulatedIoctl run = simulate_ioctl(service_, client_, cmd, arg);
    if (rounds != nullptr) *rounds = run.rounds;
    if (deferred != nullptr) *deferred = run.deferred;
    return run.result;
  }
  int key(KeyRequest& r, int* rounds = nullptr) { return ioctl(kCiocKey, &r.kop(), rounds); }

  // base^e mod n through the ioctl, the result as a number; checks the path.
  Bn mod_exp(const BIGNUM* base, const BIGNUM* e, const BIGNUM* n, devcrypto::KeyPath path) {
    KeyRequest r(kKeyModExp);
    r.in(base).in(e).in(n).out(static_cast<std::size_t>(BN_num_bytes(n)));
    EXPECT_EQ(key(r), 0);
    EXPECT_EQ(r.kop().crk_status, 0u);
    const ByteVector a = to_le(base), x = to_le(e), m = to_le(n);
    ByteVector direct(static_cast<std::size_t>(BN_num_bytes(n)));
    const devcrypto::KeyAnswer answer = devcrypto::mod_exp(service_, a, x, m, direct);
    EXPECT_EQ(answer.error, 0);
    EXPECT_EQ(answer.path, path) << BN_num_bits(n) << "-bit modulus, " << BN_num_bits(e)
                                 << "-bit exponent";
    EXPECT_EQ(direct, r.result());
    return from_le(r.result());
  }

  Bn mod_exp_crt(const std::array<const BIGNUM*, 6>& numbers, std::size_t out_bytes,
                 devcrypto::KeyPath path) {
    KeyRequest r(kKeyModExpCrt);
    for (const BIGNUM* a : numbers) r.in(a);
    r.out(out_bytes);
    EXPECT_EQ(key(r), 0);
    std::array<ByteVector, 6> le;
    std::array<devcrypto::LittleEndian, 6> spans;
    for (std::size_t i = 0; i < 6; ++i) spans[i] = le[i] = to_le(numbers[i]);
    ByteVector direct(out_bytes);
    const devcrypto::KeyAnswer answer = devcrypto::mod_exp_crt(service_, spans, direct);
    EXPECT_EQ(answer.error, 0);
    EXPECT_EQ(answer.path, path);
    EXPECT_EQ(direct, r.result());
    return from_le(r.result());
  }
};

devcrypto::KeyPath path_for(int bits) {
  return bits == 2048 || bits == 3072 || bits == 4096 ? devcrypto::KeyPath::framework
                                                      : devcrypto::KeyPath::server;
}

// A private key's numbers, as OpenSSL's RSA holds them.
struct CrtKey {
  Bn n, e, d, p, q, dp, dq, qinv;
};

// p and q of the given sizes, e = 65537, d modulo lcm(p - 1, q - 1).
CrtKey make_key(int p_bits, int q_bits) {
  Ctx ctx(BN_CTX_new());
  CrtKey k;
  Bn e(BN_new());
  BN_set_word(e.get(), 65537);
  for (;;) {
    k.p = Bn(BN_new());
    k.q = Bn(BN_new());
    BN_generate_prime_ex(k.p.get(), p_bits, 0, nullptr, nullptr, nullptr);
    BN_generate_prime_ex(k.q.get(), q_bits, 0, nullptr, nullptr, nullptr);
    Bn p1(BN_dup(k.p.get())), q1(BN_dup(k.q.get())), g(BN_new()), lambda(BN_new());
    BN_sub_word(p1.get(), 1);
    BN_sub_word(q1.get(), 1);
    BN_gcd(g.get(), p1.get(), q1.get(), ctx.get());
    BN_mul(lambda.get(), p1.get(), q1.get(), ctx.get());
    BN_div(lambda.get(), nullptr, lambda.get(), g.get(), ctx.get());
    k.d = Bn(BN_mod_inverse(nullptr, e.get(), lambda.get(), ctx.get()));
    if (!k.d || BN_cmp(k.p.get(), k.q.get()) == 0) continue;
    k.n = Bn(BN_new());
    BN_mul(k.n.get(), k.p.get(), k.q.get(), ctx.get());
    k.dp = Bn(BN_new());
    k.dq = Bn(BN_new());
    BN_mod(k.dp.get(), k.d.get(), p1.get(), ctx.get());
    BN_mod(k.dq.get(), k.d.get(), q1.get(), ctx.get());
    k.qinv = Bn(BN_mod_inverse(nullptr, k.q.get(), k.p.get(), ctx.get()));
    if (!k.qinv) continue;
    k.e = std::move(e);
    return k;
  }
}

// ---- the vector files -----------------------------------------------------

struct OaepVector {
  std::shared_ptr<CrtKey> key;
  ByteVector message, encryption;
  std::string digest = "sha1", mgf1 = "sha1";
  std::size_t line = 0;
};

fs::path vectors_root() {
  const char* env = std::getenv("CRYPTOACCEL_VECTORS_DIR");
  return env != nullptr && *env != '\0' ? fs::path(env)
                                        : fs::path(
                                              "/usr/lib/python3/dist-packages/"
                                              "cryptography_vectors");
}

// RFC 8017's oaep-vect.txt and pyca's oaep-custom files: "# Label:" lines,
// then hex (with or without spaces) until the next comment.
std::vector<OaepVector> parse_oaep(const fs::path& path) {
  static const std::map<std::string, Bn CrtKey::*> kParts = {
      {"Public exponent", &CrtKey::e},   {"Prime 1", &CrtKey::p},
      {"Prime 2", &CrtKey::q},           {"Prime exponent 1", &CrtKey::dp},
      {"Prime exponent 2", &CrtKey::dq}, {"Coefficient", &CrtKey::qinv}};
  std::ifstream file(path);
  std::vector<OaepVector> out;
  std::shared_ptr<CrtKey> key;
  bool private_part = false;
  std::string line, label, value, digest = "sha1", mgf1 = "sha1";
  OaepVector pending;
  std::size_t number = 0;
  const auto finish = [&] {
    if (label.empty()) return value.clear();
    const ByteVector v = hex(value.size() % 2 != 0 ? "0" + value : value);  // pyca's "10001"
    const auto set = [&](Bn& b) { b = from_be(v); };
    if (label == "Modulus") {
      if (key && BN_cmp(key->n.get(), from_be(v).get()) == 0) {
        private_part = true;
      } else {
        key = std::make_shared<CrtKey>();
        set(key->n);
        private_part = false;
      }
    } else if (!key) {
    } else if (label == "Exponent") {
      set(private_part ? key->d : key->e);
    } else if (const auto part = kParts.find(label); part != kParts.end()) {
      set((*key).*(part->second));
    } else if (label == "Message") {
      pending =
          OaepVector{.key = key, .message = v, .digest = digest, .mgf1 = mgf1, .line = number};
    } else if (label == "Encryption") {
      pending.encryption = v;
      out.push_back(pending);
    }
    label.clear();
    value.clear();
  };
  while (std::getline(file, line)) {
    ++number;
    if (line.rfind("#", 0) == 0) {
      finish();
      std::string body = line.substr(1);
      while (!body.empty() && (body.back() == ' ' || body.back() == '\r')) body.pop_back();
      while (!body.empty() && body.front() == ' ') body.erase(body.begin());
      if (const auto at = body.find("alg="); at != std::string::npos)
        digest = body.substr(at + 4, body.find(' ', at) - at - 4);
      if (const auto at = body.find("mgf1="); at != std::string::npos)
        mgf1 = body.substr(at + 5, body.find(' ', at) - at - 5);
      if (!body.empty() && body.back() == ':') label = body.substr(0, body.size() - 1);
      continue;
    }
    if (label.empty()) continue;  // the file's prose
    for (const char c : line)
      if (std::isxdigit(static_cast<unsigned char>(c))) value += c;
  }
  finish();
  return out;
}

AlgorithmId digest_named(const std::string& name) {
  for (const Algorithm& a : algorithms())
    if (a.kind == AlgorithmKind::digest && a.name == name) return a.id;
  throw std::invalid_argument("no digest " + name);
}

// ---- tests ------------------------------------------------------------------

TEST_F(DevcryptoKey, AbiFactsAndTheFeaturesOffered) {
  EXPECT_EQ(kCiocKey, 0xc0906369UL);
  EXPECT_EQ(sizeof(CryptKop), 144u);
  EXPECT_EQ(sizeof(CrParam), 16u);
  EXPECT_EQ(kFeatureModExp | kFeatureModExpCrt, 3u);
  std::uint32_t features = 0xffffffff;
  int rounds = 0;
  ASSERT_EQ(ioctl(kCiocAsymFeat, &features, &rounds), 0);
  EXPECT_EQ(features, kFeatureModExp | kFeatureModExpCrt) << "CRF_MOD_EXP | CRF_MOD_EXP_CRT";
  EXPECT_EQ(rounds, 2);
}

TEST_F(DevcryptoKey, OaepVectorsThroughCrtAndBack) {
  const fs::path rsa = vectors_root() / "asymmetric" / "RSA";
  if (!fs::exists(rsa)) GTEST_SKIP() << "python3-cryptography-vectors is not installed";
  std::size_t checked = 0, framework = 0;
  Ctx ctx(BN_CTX_new());
  for (const fs::path& file : {rsa / "pkcs-1v2-1d2-vec" / "oaep-vect.txt",
                               rsa / "oaep-custom" / "oaep-sha256-sha256.txt"}) {
    for (const OaepVector& v : parse_oaep(file)) {
      SCOPED_TRACE(file.filename().string() + " line " + std::to_string(v.line));
      const CrtKey& k = *v.key;
      const int bits = BN_num_bits(k.n.get());
      const std::size_t size = static_cast<std::size_t>(BN_num_bytes(k.n.get()));
      const Bn c = from_be(v.encryption);
      // CRT: the encoded message, c^d mod n.
      const Bn em =
          mod_exp_crt({c.get(), k.p.get(), k.q.get(), k.dp.get(), k.dq.get(), k.qinv.get()}, size,
                      path_for(bits));
      Bn expected(BN_new());
      BN_mod_exp(expected.get(), c.get(), k.d.get(), k.n.get(), ctx.get());
      EXPECT_EQ(BN_cmp(em.get(), expected.get()), 0) << "CRT output = c^d mod n";
      // It is the vector's message under OAEP.
      const RsaParameters oaep{.padding = RsaPadding::oaep,
                               .digest = digest_named(v.digest),
                               .mgf1_digest = digest_named(v.mgf1)};
      ByteVector message(size);
      std::size_t length = 0;
      ASSERT_EQ(rsa_padding::decode_encryption(oaep, to_be(em.get(), size), message, length),
                ErrorCode::ok);
      message.resize(length);
      EXPECT_EQ(message, v.message);
      // MOD_EXP with the public exponent gives the vector's ciphertext back.
      const Bn back = mod_exp(em.get(), k.e.get(), k.n.get(), path_for(bits));
      EXPECT_EQ(to_be(back.get(), size), v.encryption) << "MOD_EXP output = em^e mod n";
      ++checked;
      if (path_for(bits) == devcrypto::KeyPath::framework) ++framework;
    }
  }
  // Ten keys of 1024 to 2048 bits in RFC 8017's file, six examples each;
  // pyca's 2048-bit key with its ten.
  EXPECT_GE(checked, 60u + 10u);
  EXPECT_GE(framework, 6u + 10u);
}

TEST_F(DevcryptoKey, ModExpAgreesWithOpenSslOverSizesAndExponents) {
  Ctx ctx(BN_CTX_new());
  Bn f4(BN_new()), zero(BN_new()), one(BN_new()), two(BN_new());
  BN_set_word(f4.get(), 65537);
  BN_zero(zero.get());
  BN_one(one.get());
  BN_set_word(two.get(), 2);
  for (const int bits : {2, 17, 64, 511, 1024, 1536, 2047, 2048, 2049, 3072, 4096, 4100}) {
    SCOPED_TRACE(std::to_string(bits) + "-bit modulus");
    const Bn n = random_bits(bits, true, true);
    const Bn base = random_below(n.get());
    const Bn large = random_below(n.get());  // a private-sized exponent, any parity
    const Bn odd_large = random_below(n.get());
    BN_set_bit(odd_large.get(), 0);
    const auto row = path_for(bits);
    const bool small_modulus = bits <= 3072;
    struct Case {
      const BIGNUM* e;
      devcrypto::KeyPath path;
    };
    for (const Case& c :
         {Case{f4.get(), BN_cmp(f4.get(), n.get()) < 0 ? row : devcrypto::KeyPath::server},
          Case{zero.get(), devcrypto::KeyPath::server}, Case{one.get(), devcrypto::KeyPath::server},
          Case{two.get(), devcrypto::KeyPath::server},
          Case{large.get(), BN_is_odd(large.get()) && small_modulus && !BN_is_one(large.get())
                                ? row
                                : devcrypto::KeyPath::server},
          Case{odd_large.get(),
               small_modulus && !BN_is_one(odd_large.get()) ? row : devcrypto::KeyPath::server}}) {
      if (bits > 3072 && c.e == large.get()) continue;  // covered by odd_large, slowly enough
      Bn expected(BN_new());
      BN_mod_exp(expected.get(), base.get(), c.e, n.get(), ctx.get());
      const Bn got = mod_exp(base.get(), c.e, n.get(), c.path);
      EXPECT_EQ(BN_cmp(got.get(), expected.get()), 0) << BN_num_bits(c.e) << "-bit exponent";
    }
  }
}

TEST_F(DevcryptoKey, CrtAgreesWithOpenSslOverBalancedAndUnbalancedKeys) {
  Ctx ctx(BN_CTX_new());
  for (const auto& [p_bits, q_bits] : std::vector<std::pair<int, int>>{{64, 64},
                                                                       {256, 256},
                                                                       {700, 324},
                                                                       {512, 512},
                                                                       {1024, 1024},
                                                                       {1536, 1536},
                                                                       {1024, 1025},
                                                                       {2048, 2048}}) {
    const CrtKey k = make_key(p_bits, q_bits);
    const int bits = BN_num_bits(k.n.get());
    SCOPED_TRACE(std::to_string(bits) + "-bit modulus of " + std::to_string(p_bits) + " and " +
                 std::to_string(q_bits) + "-bit primes");
    const std::size_t size = static_cast<std::size_t>(BN_num_bytes(k.n.get()));
    for (int i = 0; i < 2; ++i) {
      const Bn x = random_below(k.n.get());
      Bn expected(BN_new());
      BN_mod_exp(expected.get(), x.get(), k.d.get(), k.n.get(), ctx.get());
      const Bn got =
          mod_exp_crt({x.get(), k.p.get(), k.q.get(), k.dp.get(), k.dq.get(), k.qinv.get()},
                      size + 3 * i, path_for(bits));
      EXPECT_EQ(BN_cmp(got.get(), expected.get()), 0);
    }
  }
}

TEST_F(DevcryptoKey, TheResultIsZeroPaddedToTheOutputBuffer) {
  Bn n(BN_new()), base(BN_new()), e(BN_new());
  BN_set_word(n.get(), 3233);
  BN_set_word(base.get(), 2);
  BN_set_word(e.get(), 3);
  KeyRequest r(kKeyModExp);
  r.in(base.get()).in(e.get()).in(n.get()).out(8);
  int rounds = 0, deferred = 0;
  ASSERT_EQ(ioctl(kCiocKey, &r.kop(), &rounds, &deferred), 0);
  EXPECT_EQ(rounds, 3) << "nothing, the struct, then the struct with its numbers";
  EXPECT_EQ(deferred, 1) << "the operation runs off the threads that serve everyone";
  EXPECT_EQ(r.result(), ByteVector({8, 0, 0, 0, 0, 0, 0, 0}));
  // RFC 8017's tiny example key: p 61, q 53, d 2753 (dP 53, dQ 49, qInv 38).
  std::array<Bn, 6> crt;
  const unsigned long values[] = {65, 61, 53, 53, 49, 38};
  KeyRequest c(kKeyModExpCrt);
  for (std::size_t i = 0; i < 6; ++i) {
    crt[i] = Bn(BN_new());
    BN_set_word(crt[i].get(), values[i]);
    c.in(crt[i].get());
  }
  c.out(4);
  ASSERT_EQ(key(c), 0);
  EXPECT_EQ(c.result(), ByteVector({0x4c, 0x02, 0, 0})) << "65^2753 mod 3233 = 588";
}

// Every malformed request: its errno, and nothing written (the output and
// the struct's crk_status keep what the client put there).
TEST_F(DevcryptoKey, MalformedRequestsWriteNothing) {
  Bn n(BN_new()), base(BN_new()), e(BN_new()), even(BN_new()), one(BN_new());
  BN_set_word(n.get(), 3233);
  BN_set_word(base.get(), 65);
  BN_set_word(e.get(), 17);
  BN_set_word(even.get(), 3234);
  BN_one(one.get());
  const auto mod_exp_of = [&](const BIGNUM* a, const BIGNUM* m, std::size_t out) {
    KeyRequest r(kKeyModExp);
    r.in(a).in(e.get()).in(m).out(out);
    return r;
  };
  const auto expect = [&](KeyRequest r, int error, const char* what) {
    EXPECT_EQ(key(r), -error) << what;
    EXPECT_TRUE(r.untouched()) << what;
  };
  {
    KeyRequest good = mod_exp_of(base.get(), n.get(), 2);
    ASSERT_EQ(key(good), 0) << "the request the others break";
  }
  expect(mod_exp_of(n.get(), n.get(), 2), EINVAL, "base = modulus");
  expect(mod_exp_of(even.get(), n.get(), 2), EINVAL, "base > modulus");
  expect(mod_exp_of(base.get(), even.get(), 2), EINVAL, "even modulus");
  expect(mod_exp_of(base.get(), one.get(), 2), EINVAL, "modulus 1");
  expect(mod_exp_of(base.get(), n.get(), 1), EINVAL, "output shorter than the modulus");
  {
    KeyRequest r = mod_exp_of(base.get(), n.get(), 2);
    r.kop().crk_iparams = 2;  // the modulus becomes the output
    r.kop().crk_oparams = 2;
    expect(std::move(r), EINVAL, "2 in, 2 out");
  }
  for (const auto& [in, out] : std::vector<std::pair<int, int>>{{2, 1}, {3, 0}, {3, 2}, {4, 1}}) {
    KeyRequest r = mod_exp_of(base.get(), n.get(), 2);
    r.kop().crk_iparams = static_cast<std::uint16_t>(in);
    r.kop().crk_oparams = static_cast<std::uint16_t>(out);
    expect(std::move(r), EINVAL, "MOD_EXP with other counts");
  }
  {
    KeyRequest r = mod_exp_of(base.get(), n.get(), 2);
    r.kop().crk_op = kKeyModExpCrt;
    expect(std::move(r), EINVAL, "CRT with MOD_EXP's counts");
    r = mod_exp_of(base.get(), n.get(), 2);
    r.kop().crk_iparams = 8;
    expect(std::move(r), EFBIG, "more than CRK_MAXPARAM numbers (OCF's EFBIG)");
    r = mod_exp_of(base.get(), n.get(), 2);
    r.kop().crk_op = 7;
    expect(std::move(r), EINVAL, "an unknown operation");
    r = mod_exp_of(base.get(), n.get(), 2);
    r.kop().crk_op = kKeyDhComputeKey;
    expect(std::move(r), EOPNOTSUPP, "DH, well formed: not offered");
    r = mod_exp_of(base.get(), n.get(), 2);
    r.kop().crk_op = kKeyDhComputeKey;
    r.kop().crk_oparams = 0;
    expect(std::move(r), EINVAL, "DH with other counts");
    r = mod_exp_of(base.get(), n.get(), 2);
    r.kop().crk_op = kKeyDsaSign;
    r.kop().crk_iparams = 5;
    r.kop().crk_oparams = 2;
    expect(std::move(r), EOPNOTSUPP, "DSA signing, well formed: not offered");
    r = mod_exp_of(base.get(), n.get(), 2);
    r.kop().crk_op = kKeyDsaVerify;
    r.kop().crk_iparams = 7;
    r.kop().crk_oparams = 0;
    expect(std::move(r), EOPNOTSUPP, "DSA verification, well formed: not offered");
  }
  for (std::size_t i = 0; i < 4; ++i) {
    KeyRequest r = mod_exp_of(base.get(), n.get(), 2);
    r.kop().crk_param[i].crp_nbits = 0;
    expect(std::move(r), EINVAL, "a number of 0 bits");
    r = mod_exp_of(base.get(), n.get(), 2);
    r.kop().crk_param[i].crp_nbits = 16385;
    expect(std::move(r), EINVAL, "a number over 16384 bits");
    r = mod_exp_of(base.get(), n.get(), 2);
    r.kop().crk_param[i].crp_nbits = 0xffffffff;
    expect(std::move(r), EINVAL, "a number of 2^32 - 1 bits");
    r = mod_exp_of(base.get(), n.get(), 2);
    r.kop().crk_param[i].crp_p = 0;
    expect(std::move(r), EFAULT, "a null number");
  }
  {
    KeyRequest r(kKeyModExp);
    r.in(base.get()).in_bytes({0x80}, 7).in(n.get()).out(2);  // 128 in 7 bits
    expect(std::move(r), EINVAL, "a number wider than its crp_nbits");
  }
  {
    // A number that runs into an inaccessible page: the kernel's EFAULT.
    const long page = sysconf(_SC_PAGESIZE);
    void* map = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(map, MAP_FAILED);
    ASSERT_EQ(mprotect(static_cast<char*>(map) + page, page, PROT_NONE), 0);
    auto* edge = static_cast<std::uint8_t*>(map) + page - 1;
    *edge = 0x11;
    KeyRequest r = mod_exp_of(base.get(), n.get(), 2);
    r.kop().crk_param[2].crp_p = reinterpret_cast<std::uintptr_t>(edge);  // 2 bytes, 1 mapped
    expect(std::move(r), EFAULT, "a modulus half unmapped");
    munmap(map, 2 * page);
  }
}

TEST_F(DevcryptoKey, InconsistentCrtKeysAreRefused) {
  const CrtKey k = make_key(256, 256);
  const std::size_t size = static_cast<std::size_t>(BN_num_bytes(k.n.get()));
  const Bn x = random_below(k.n.get());
  Bn bad(BN_new());
  const auto request = [&](int which, const BIGNUM* replacement, std::size_t out) {
    std::array<const BIGNUM*, 6> numbers{x.get(),    k.p.get(),  k.q.get(),
                                         k.dp.get(), k.dq.get(), k.qinv.get()};
    if (which >= 0) numbers[static_cast<std::size_t>(which)] = replacement;
    KeyRequest r(kKeyModExpCrt);
    for (const BIGNUM* a : numbers) r.in(a);
    r.out(out);
    return r;
  };
  const auto expect_refused = [&](KeyRequest r, const char* what) {
    EXPECT_EQ(key(r), -EINVAL) << what;
    EXPECT_TRUE(r.untouched()) << what;
  };
  {
    KeyRequest good = request(-1, nullptr, size);
    ASSERT_EQ(key(good), 0);
  }
  expect_refused(request(0, k.n.get(), size), "x = pq");
  expect_refused(request(-1, nullptr, size - 1), "output shorter than pq");
  BN_copy(bad.get(), k.qinv.get());
  BN_add_word(bad.get(), 1);
  expect_refused(request(5, bad.get(), size), "qInv + 1");
  expect_refused(request(5, k.p.get(), size), "qInv = p");
  BN_copy(bad.get(), k.dp.get());
  BN_add_word(bad.get(), 1);
  expect_refused(request(3, bad.get(), size), "dP + 1: dP and dQ disagree modulo 2");
  BN_copy(bad.get(), k.p.get());
  expect_refused(request(3, bad.get(), size), "dP = p");
  BN_zero(bad.get());
  expect_refused(request(4, bad.get(), size), "dQ = 0");
  BN_copy(bad.get(), k.p.get());
  BN_add_word(bad.get(), 1);
  expect_refused(request(1, bad.get(), size), "an even p");
  expect_refused(request(2, k.p.get(), size), "q = p");
}

}  // namespace
}  // namespace cryptoaccel::test
