// CIOCKEY, OCF's asymmetric interface (OpenSSL 1.0's cryptodev engine sent
// RSA's private operations here as CRK_MOD_EXP_CRT, its public ones and DH
// as CRK_MOD_EXP). Three rounds as CIOCCRYPT: the struct; every count,
// length and pointer checked, then the struct and the input numbers; the
// work (key_operations.hpp), answered with the struct and the output
// number. Any error writes nothing. DSA and DH are not served.
#include "key_operations.hpp"
#include "protocol_rounds.hpp"

namespace cryptoaccel::devcrypto::rounds {
namespace {

using namespace cryptodev;

// The widest number a request may carry: OCF's bound is 65536 bits, more
// than any RSA key in use; this one keeps a request's numbers within 16 KiB.
constexpr std::uint32_t kMaxKeyBits = 16384;

template <class Param>
std::size_t bytes_of(const Param& p) {
  return (std::size_t{p.crp_nbits} + 7) / 8;
}

// OCF's cryptodev_key checks the counts of each operation first.
template <class Op>
int check_counts(const Op& op) {
  if (std::size_t{op.crk_iparams} + op.crk_oparams > kMaxKeyParams) return EFBIG;
  const auto counts = [&](unsigned in, unsigned out) {
    return op.crk_iparams == in && op.crk_oparams == out;
  };
  switch (op.crk_op) {
    case kKeyModExp:
      return counts(3, 1) ? 0 : EINVAL;
    case kKeyModExpCrt:
      return counts(6, 1) ? 0 : EINVAL;
    case kKeyDsaSign:  // known, well formed and not served: CIOCASYMFEAT does not offer them
      return counts(5, 2) ? EOPNOTSUPP : EINVAL;
    case kKeyDsaVerify:
      return counts(7, 0) ? EOPNOTSUPP : EINVAL;
    case kKeyDhComputeKey:
      return counts(3, 1) ? EOPNOTSUPP : EINVAL;
    default:
      return EINVAL;
  }
}

template <class Op>
Plan plan_key(std::uint64_t arg, const Op& op) {
  if (const int error = check_counts(op); error != 0) return failed(error);
  const std::size_t count = std::size_t{op.crk_iparams} + op.crk_oparams;
  for (std::size_t i = 0; i < count; ++i) {
    const auto& p = op.crk_param[i];
    if (p.crp_nbits == 0 || p.crp_nbits > kMaxKeyBits) return failed(EINVAL);
    if (p.crp_p == 0) return failed(EFAULT);  // what OCF's copyin answers
  }
  Plan plan;
  plan.read(arg, sizeof op);
  for (std::size_t i = 0; i < op.crk_iparams; ++i)
    plan.read(op.crk_param[i].crp_p, bytes_of(op.crk_param[i]));
  plan.write(arg, sizeof op);
  plan.write(op.crk_param[op.crk_iparams].crp_p, bytes_of(op.crk_param[op.crk_iparams]));
  return plan;
}

template <class Op>
IoctlReply run_key(const Service& service, std::span<const std::uint8_t> in, const Plan& plan) {
  Op op = read_struct<Op>(in);
  std::array<LittleEndian, kMaxKeyParams> numbers{};
  std::size_t at = sizeof op;
  for (std::size_t i = 0; i < op.crk_iparams; ++i) {
    const auto& p = op.crk_param[i];
    numbers[i] = in.subspan(at, bytes_of(p));
    at += bytes_of(p);
    // A number wider than its crp_nbits says is malformed.
    if (const unsigned spare = p.crp_nbits % 8; spare != 0 && (numbers[i].back() >> spare) != 0)
      return fail(EINVAL);
  }
  op.crk_status = 0;
  Output out(plan.out_size());
  out.put(op);
  const std::span<std::uint8_t> result = out.take(bytes_of(op.crk_param[op.crk_iparams]));
  const KeyAnswer answer =
      op.crk_op == kKeyModExp
          ? mod_exp(service, numbers[0], numbers[1], numbers[2], result)
          : mod_exp_crt(service, std::span<const LittleEndian, 6>(numbers.data(), 6), result);
  if (answer.error != 0) return fail(answer.error);
  return done(out.release());
}

}  // namespace

template <class L>
IoctlReply handle_key(const Service& service, const IoctlCall& call) {
  using CryptKop = typename L::CryptKop;
  return three_rounds<CryptKop>(
      call, [&](const CryptKop& op) { return plan_key(call.arg, op); },
      [&](const Plan& plan, std::span<const std::uint8_t> in) {
        // Seconds on numbers of thousands of bits: not on a thread that
        // serves every client (protocol.hpp).
        if (call.shared_worker) return deferred();
        return run_key<CryptKop>(service, in, plan);
      });
}

template IoctlReply handle_key<Layout64>(const Service&, const IoctlCall&);
template IoctlReply handle_key<Layout32>(const Service&, const IoctlCall&);

}  // namespace cryptoaccel::devcrypto::rounds
