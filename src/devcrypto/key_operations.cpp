// CIOCKEY's arithmetic (key_operations.hpp): OpenSSL's BIGNUMs, secure-heap
// contexts, every number cleared when it goes.
#include "key_operations.hpp"

#include <openssl/bn.h>
#include <openssl/err.h>

#include <cerrno>
#include <memory>
#include <new>
#include <vector>

#include "cryptoaccel/driver/secret_bytes.hpp"
#include "cryptoaccel/rsa.hpp"

namespace cryptoaccel::devcrypto {
namespace {

struct BnFree {
  void operator()(BIGNUM* bn) const noexcept { BN_clear_free(bn); }
};
struct CtxFree {
  void operator()(BN_CTX* ctx) const noexcept { BN_CTX_free(ctx); }
};
using Bn = std::unique_ptr<BIGNUM, BnFree>;
using Ctx = std::unique_ptr<BN_CTX, CtxFree>;

// BIGNUM arithmetic fails only when it cannot allocate (our arguments are
// checked first): ENOMEM.
void check(int ok) {
  if (ok != 1) throw std::bad_alloc();
}

Bn fresh() {
  Bn bn(BN_secure_new());
  if (!bn) throw std::bad_alloc();
  BN_set_flags(bn.get(), BN_FLG_CONSTTIME);
  return bn;
}

Bn number(LittleEndian bytes) {
  Bn bn(BN_lebin2bn(bytes.data(), static_cast<int>(bytes.size()), nullptr));
  if (!bn) throw std::bad_alloc();
  BN_set_flags(bn.get(), BN_FLG_CONSTTIME);
  return bn;
}

Bn minus_one(const BIGNUM* a) {
  Bn r(BN_dup(a));
  if (!r) throw std::bad_alloc();
  check(BN_sub_word(r.get(), 1));
  return r;
}

std::size_t bytes_of(const BIGNUM* a) {
  return static_cast<std::size_t>(BN_num_bytes(a));
}

// A number as RsaKey::Components takes it: big-endian, wiped when it goes.
class BigEndian {
 public:
  explicit BigEndian(std::size_t size) : bytes_(size) {}
  BigEndian(const BIGNUM* a, std::size_t size) : bytes_(size) {
    if (BN_bn2binpad(a, bytes_.data(), static_cast<int>(size)) < 0) throw std::bad_alloc();
  }
  explicit BigEndian(const BIGNUM* a) : BigEndian(a, bytes_of(a)) {}
  ~BigEndian() { secure_wipe(bytes_.data(), bytes_.size()); }
  BigEndian(const BigEndian&) = delete;
  BigEndian& operator=(const BigEndian&) = delete;
  std::span<std::uint8_t> span() noexcept { return bytes_; }
  std::span<const std::uint8_t> view() const noexcept { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
};

// OCF's output: little-endian, zero-padded to the buffer (checked to be
// large enough before any work).
void write_out(const BIGNUM* result, std::span<std::uint8_t> out) {
  if (BN_bn2lebinpad(result, out.data(), static_cast<int>(out.size())) < 0) throw std::bad_alloc();
}
void write_out(std::span<const std::uint8_t> big_endian, std::span<std::uint8_t> out) {
  std::fill(out.begin(), out.end(), 0);
  for (std::size_t i = 0; i < big_endian.size(); ++i)
    out[i] = big_endian[big_endian.size() - 1 - i];
}

// Does the framework serve RSA with a modulus of `bits` (a row, and the
// pinned driver, if any, among those that serve it)?
bool framework_serves(const Service& service, int bits) {
  for (const Algorithm& a : algorithms())
    if (a.kind == AlgorithmKind::public_key && a.output_size * 8 == static_cast<std::size_t>(bits))
      return service.serves(a.id);
  return false;
}

// The public exponents OpenSSL's RSA takes (rsa_ossl_public_encrypt: e
// below n, and at most 64 bits above a 3072-bit modulus), odd and above 1
// as an RSA key's are.
bool rsa_takes_public_exponent(const BIGNUM* e, const BIGNUM* n) {
  return BN_is_odd(e) && !BN_is_one(e) && BN_ucmp(e, n) < 0 &&
         (BN_num_bits(n) <= 3072 || BN_num_bits(e) <= 64);
}

int errno_of(ErrorCode code) {
  switch (code) {
    case ErrorCode::invalid_key:
    case ErrorCode::invalid_argument:
    case ErrorCode::invalid_length:
      return EINVAL;  // the framework refused these numbers as a key or input
    default:
      return EIO;  // as a driver failure is everywhere else in the server
  }
}

template <class Work>
KeyAnswer guarded(Work work) noexcept {
  KeyAnswer answer;
  try {
    answer = work();
  } catch (const std::bad_alloc&) {
    answer.error = ENOMEM;
  } catch (const Error& e) {
    answer.error = errno_of(e.code());
  } catch (...) {
    answer.error = EIO;
  }
  ERR_clear_error();
  return answer;
}

}  // namespace

KeyAnswer mod_exp(const Service& service, LittleEndian base, LittleEndian exponent,
                  LittleEndian modulus, std::span<std::uint8_t> out) noexcept {
  return guarded([&]() -> KeyAnswer {
    const Bn n = number(modulus), e = number(exponent), a = number(base);
    if (!BN_is_odd(n.get()) || BN_is_one(n.get())) return {.error = EINVAL};
    if (BN_ucmp(a.get(), n.get()) >= 0) return {.error = EINVAL};
    const std::size_t size = bytes_of(n.get());
    if (out.size() < size) return {.error = EINVAL};
    if (framework_serves(service, BN_num_bits(n.get())) &&
        rsa_takes_public_exponent(e.get(), n.get())) {
      const BigEndian n_be(n.get(), size), e_be(e.get()), in(a.get(), size);
      BigEndian result(size);
      const RsaKey key = RsaKey::from_components({.n = n_be.view(), .e = e_be.view()});
      RsaSession session(key, service.session_options());
      session.encrypt({.padding = RsaPadding::none}, in.view(), result.span());
      write_out(result.view(), out);
      return {.path = KeyPath::framework};
    }
    const Ctx ctx(BN_CTX_secure_new());
    if (!ctx) throw std::bad_alloc();
    const Bn r = fresh();
    check(BN_mod_exp_mont_consttime(r.get(), a.get(), e.get(), n.get(), ctx.get(), nullptr));
    write_out(r.get(), out);
    return {.path = KeyPath::server};
  });
}

KeyAnswer mod_exp_crt(const Service& service, std::span<const LittleEndian, 6> in,
                      std::span<std::uint8_t> out) noexcept {
  return guarded([&]() -> KeyAnswer {
    const Bn x = number(in[0]), p = number(in[1]), q = number(in[2]), dp = number(in[3]),
             dq = number(in[4]), qinv = number(in[5]);
    const Ctx ctx(BN_CTX_secure_new());
    if (!ctx) throw std::bad_alloc();
    const auto odd_above_two = [](const BIGNUM* v) { return BN_is_odd(v) && !BN_is_one(v); };
    if (!odd_above_two(p.get()) || !odd_above_two(q.get()) || BN_cmp(p.get(), q.get()) == 0)
      return {.error = EINVAL};
    const Bn n = fresh();
    check(BN_mul(n.get(), p.get(), q.get(), ctx.get()));
    if (BN_ucmp(x.get(), n.get()) >= 0) return {.error = EINVAL};
    const std::size_t size = bytes_of(n.get());
    if (out.size() < size) return {.error = EINVAL};
    const Bn p1 = minus_one(p.get()), q1 = minus_one(q.get());
    if (BN_is_zero(dp.get()) || BN_ucmp(dp.get(), p1.get()) >= 0 || BN_is_zero(dq.get()) ||
        BN_ucmp(dq.get(), q1.get()) >= 0 || BN_ucmp(qinv.get(), p.get()) >= 0)
      return {.error = EINVAL};
    const Bn t = fresh();
    check(BN_mod_mul(t.get(), qinv.get(), q.get(), p.get(), ctx.get()));
    if (!BN_is_one(t.get())) return {.error = EINVAL};  // qInv is not q^-1 mod p

    // d = dP mod (p - 1) and d = dQ mod (q - 1): the two agree modulo
    // g = gcd(p - 1, q - 1), and d = dP + (p - 1) k with
    // k = ((dQ - dP) / g) ((p - 1) / g)^-1 mod (q - 1) / g, below lcm.
    const Bn g = fresh(), difference = fresh(), quotient = fresh(), remainder = fresh();
    check(BN_gcd(g.get(), p1.get(), q1.get(), ctx.get()));
    check(BN_sub(difference.get(), dq.get(), dp.get()));
    check(BN_div(quotient.get(), remainder.get(), difference.get(), g.get(), ctx.get()));
    if (!BN_is_zero(remainder.get())) return {.error = EINVAL};  // dP and dQ disagree
    const Bn a = fresh(), b = fresh(), k = fresh(), d = fresh(), lambda = fresh();
    check(BN_div(a.get(), nullptr, p1.get(), g.get(), ctx.get()));
    check(BN_div(b.get(), nullptr, q1.get(), g.get(), ctx.get()));
    if (BN_is_one(b.get())) {
      BN_zero(k.get());
    } else {
      const Bn a_inverse(BN_mod_inverse(nullptr, a.get(), b.get(), ctx.get()));
      if (!a_inverse) throw std::bad_alloc();  // a and b are coprime
      check(BN_nnmod(k.get(), quotient.get(), b.get(), ctx.get()));
      check(BN_mod_mul(k.get(), k.get(), a_inverse.get(), b.get(), ctx.get()));
    }
    check(BN_mul(d.get(), p1.get(), k.get(), ctx.get()));
    check(BN_add(d.get(), d.get(), dp.get()));
    check(BN_mul(lambda.get(), p1.get(), b.get(), ctx.get()));  // lcm(p - 1, q - 1)
    const Bn e(BN_mod_inverse(nullptr, d.get(), lambda.get(), ctx.get()));
    if (!e) return {.error = EINVAL};  // no public exponent: not an RSA key

    if (framework_serves(service, BN_num_bits(n.get()))) {
      const BigEndian n_be(n.get(), size), e_be(e.get()), d_be(d.get()), p_be(p.get()),
          q_be(q.get()), dp_be(dp.get()), dq_be(dq.get()), qinv_be(qinv.get()), x_be(x.get(), size);
      BigEndian result(size);
      const RsaKey key = RsaKey::from_components({.n = n_be.view(),
                                                  .e = e_be.view(),
                                                  .d = d_be.view(),
                                                  .p = p_be.view(),
                                                  .q = q_be.view(),
                                                  .dp = dp_be.view(),
                                                  .dq = dq_be.view(),
                                                  .qinv = qinv_be.view()});
      RsaSession session(key, service.session_options());
      session.decrypt({.padding = RsaPadding::none}, x_be.view(), result.span());
      write_out(result.view(), out);
      return {.path = KeyPath::framework};
    }
    // Garner's recombination: m1 = x^dP mod p, m2 = x^dQ mod q,
    // x^d = m2 + q (qInv (m1 - m2) mod p).
    const Bn reduced = fresh(), m1 = fresh(), m2 = fresh(), h = fresh();
    check(BN_nnmod(reduced.get(), x.get(), p.get(), ctx.get()));
    check(
        BN_mod_exp_mont_consttime(m1.get(), reduced.get(), dp.get(), p.get(), ctx.get(), nullptr));
    check(BN_nnmod(reduced.get(), x.get(), q.get(), ctx.get()));
    check(
        BN_mod_exp_mont_consttime(m2.get(), reduced.get(), dq.get(), q.get(), ctx.get(), nullptr));
    check(BN_mod_sub(h.get(), m1.get(), m2.get(), p.get(), ctx.get()));
    check(BN_mod_mul(h.get(), h.get(), qinv.get(), p.get(), ctx.get()));
    check(BN_mul(h.get(), h.get(), q.get(), ctx.get()));
    check(BN_add(h.get(), h.get(), m2.get()));
    write_out(h.get(), out);
    return {.path = KeyPath::server};
  });
}

}  // namespace cryptoaccel::devcrypto
