// CIOCAUTHCRYPT in cryptodev-linux's three modes (its authenc.c):
//   - AEAD (an AEAD cipher, GCM): the AAD from auth_src, seal writes
//     ciphertext || tag to dst, open takes them from src;
//   - TLS (COP_FLAG_AEAD_TLS_TYPE, a cipher and an HMAC, in place):
//     MAC-then-encrypt, the MAC over auth_src || plaintext, then TLS padding
//     (bytes of the pad length - 1) to the cipher's block;
//   - SRTP (COP_FLAG_AEAD_SRTP_TYPE, a stream cipher and an HMAC, in place):
//     encrypt-then-MAC, src lies inside auth_src (at most 256 bytes in) and
//     the MAC over all of auth_src goes to `tag`.
// A session's hash starts anew for every request. What differs from the
// module, on purpose, is in docs/devcrypto.md.
#include <algorithm>

#include "protocol_rounds.hpp"

namespace cryptoaccel::devcrypto::rounds {
namespace {

using namespace cryptodev;

enum class Mode { aead, tls, srtp };

struct AuthRequest {
  Mode mode = Mode::aead;
  std::size_t tag = 0;      // the tag or MAC length of this request
  std::size_t out_len = 0;  // what goes to dst (TLS, AEAD) or back in place (SRTP)
  std::size_t offset = 0;   // SRTP: where src lies in auth_src
};

// The IV a request brings (the session's length), or none: then a TLS or
// SRTP request continues from the IV the last one left, as CIOCCRYPT does.
template <class Op>
std::size_t iv_length(const Op& op, const ServerSession& session) {
  return op.iv != 0 ? session.iv_size() : 0;
}

// The IV is written back with COP_FLAG_WRITE_IV, as CIOCCRYPT does.
template <class Op>
void plan_iv(Plan& plan, const Op& op, const ServerSession& session) {
  plan.read(op.iv, iv_length(op, session));
}
template <class Op>
void plan_iv_back(Plan& plan, const Op& op, const ServerSession& session) {
  if ((op.flags & kFlagWriteIv) != 0) plan.write(op.iv, iv_length(op, session));
}

// AEAD and TLS read the struct, the IV, the AAD and the data, and write
// the struct, the IV back and `out_len` bytes to dst.
template <class Op>
Plan plan_record(std::uint64_t arg, const Op& op, const ServerSession& session,
                 std::size_t iv_len, std::size_t out_len) {
  Plan plan;
  plan.read(arg, sizeof op);
  plan.read(op.iv, iv_len);
  plan.read(op.auth_src, op.auth_len);
  plan.read(op.src, op.len);
  plan.write(arg, sizeof op);
  plan_iv_back(plan, op, session);
  plan.write(op.dst, out_len);
  return plan;
}

template <class Op>
Plan plan_aead(std::uint64_t arg, const Op& op, const ServerSession& session,
               AuthRequest& r) {
  const Algorithm& a = *session.cipher_algorithm();
  r.tag = op.tag_len == 0 ? a.output_size : op.tag_len;
  if (!a.tag_sizes.contains(r.tag)) return failed(EINVAL);  // "Illegal tag length"
  const bool seal = op.op == kEncrypt;
  if (!seal && op.len < r.tag) return failed(EINVAL);
  if (op.len > kMaxData || op.auth_len > kMaxData || op.len + op.auth_len > kMaxData)
    return failed(EMSGSIZE);
  // Without an IV the module reuses the session's last nonce (zeros at
  // first); under GCM that gives away the authentication key. Refused.
  if (op.iv == 0) return failed(EINVAL);
  if ((op.auth_len != 0 && op.auth_src == 0) || (op.len != 0 && op.src == 0)) return failed(EINVAL);
  r.out_len = seal ? op.len + r.tag : op.len - r.tag;
  if (r.out_len != 0 && op.dst == 0) return failed(EINVAL);
  return plan_record(arg, op, session, a.iv_size, r.out_len);
}

template <class Op>
Plan plan_tls(std::uint64_t arg, const Op& op, const ServerSession& session,
              AuthRequest& r) {
  const bool seal = op.op == kEncrypt;
  const std::size_t block = session.block_size();
  if (session.has_hash()) {
    r.tag = op.tag_len == 0 ? session.digest_size() : op.tag_len;
    // The module would copy bytes from beyond the digest; we refuse.
    if (r.tag > session.digest_size()) return failed(EINVAL);
  }
  if (op.dst == 0) return failed(EINVAL);
  if (op.auth_len != 0 && op.auth_src == 0) return failed(EINVAL);
  if (op.len > kMaxData || op.auth_len > kMaxData) return failed(EMSGSIZE);
  if (seal) {
    const std::size_t body = op.len + r.tag;
    r.out_len = body + (block > 1 ? block - body % block : 0);
  } else {
    if (op.len == 0 || op.len % block != 0 || !session.cipher_takes(op.len)) return failed(EINVAL);
    r.out_len = op.len;  // the whole record, decrypted in place
  }
  if (r.out_len + op.auth_len > kMaxData) return failed(EMSGSIZE);
  return plan_record(arg, op, session, iv_length(op, session), r.out_len);
}

template <class Op>
Plan plan_srtp(std::uint64_t arg, const Op& op, const ServerSession& session,
               AuthRequest& r) {
  if (!session.stream_cipher() || session.aead()) return failed(EINVAL);  // stream modes only
  const bool seal = op.op == kEncrypt;
  r.tag = session.has_hash() && op.tag_len == 0 ? session.digest_size() : op.tag_len;
  if (op.dst == 0 && op.auth_src == 0) return failed(EINVAL);
  if ((seal ? op.len + r.tag : op.len) == 0 || op.auth_len == 0) return failed(EINVAL);
  // In 64 bits: a 32-bit program's pointers must not wrap into an offset.
  const std::int64_t offset = static_cast<std::int64_t>(std::uint64_t{op.src}) -
                              static_cast<std::int64_t>(std::uint64_t{op.auth_src});
  if (offset < 0 || offset > static_cast<std::int64_t>(kMaxSrtpOffset)) return failed(EINVAL);
  r.offset = static_cast<std::size_t>(offset);
  // The module would run past auth_src; we refuse.
  if (op.auth_len > kMaxData) return failed(EMSGSIZE);
  if (r.offset + op.len > op.auth_len) return failed(EINVAL);
  const bool mac = session.has_hash() && r.tag != 0;
  if (session.has_hash()) {
    if (r.tag > session.digest_size()) return failed(EINVAL);
    if (!seal && r.tag > op.len) return failed(EINVAL);  // the module's "Illegal tag len size"
    if (mac && op.tag == 0) return failed(EFAULT);
  }
  r.out_len = op.len;
  Plan plan;
  plan.read(arg, sizeof op);
  plan_iv(plan, op, session);
  plan.read(op.auth_src, op.auth_len);
  if (mac && !seal) plan.read(op.tag, r.tag);
  plan.write(arg, sizeof op);
  plan_iv_back(plan, op, session);
  plan.write(op.src, op.len);
  if (mac && seal) plan.write(op.tag, r.tag);
  return plan;
}

template <class Op>
Plan plan_auth(std::uint64_t arg, const Op& op, const ServerSession* session,
               AuthRequest& r) {
  if (session == nullptr) return failed(EINVAL);
  const bool tls = (op.flags & kFlagAeadTls) != 0, srtp = (op.flags & kFlagAeadSrtp) != 0;
  if ((tls || srtp) && op.src != op.dst) return failed(EINVAL);  // in place only
  if (op.op != kEncrypt && op.op != kDecrypt) return failed(EINVAL);
  if (!session->has_cipher()) return failed(EINVAL);  // "cipher context not initialized"
  if (srtp) {
    r.mode = Mode::srtp;
    return plan_srtp(arg, op, *session, r);
  }
  if (tls && !session->aead()) {
    r.mode = Mode::tls;
    return plan_tls(arg, op, *session, r);
  }
  if (!session->aead()) return failed(EINVAL);
  r.mode = Mode::aead;  // an AEAD cipher with the TLS flag is plain AEAD
  return plan_aead(arg, op, *session, r);
}

// The plan's input after the struct, in the plan's order.
struct AuthInput {
  std::span<const std::uint8_t> iv, aad, data, tag;
};

template <class Op>
AuthInput split_input(const Op& op, const ServerSession& session, const AuthRequest& r,
                      std::span<const std::uint8_t> rest) {
  AuthInput in;
  const std::size_t iv = r.mode == Mode::aead ? session.iv_size() : iv_length(op, session);
  in.iv = rest.first(iv);
  in.aad = rest.subspan(iv, op.auth_len);
  if (r.mode == Mode::srtp) {
    in.data = in.aad.subspan(r.offset, op.len);
    const bool mac = session.has_hash() && r.tag != 0;
    if (mac && op.op == kDecrypt) in.tag = rest.subspan(iv + op.auth_len, r.tag);
  } else {
    in.data = rest.subspan(iv + op.auth_len, op.len);
  }
  return in;
}

// MAC of the session over `first` then `second` into `mac` (digest_size bytes).
int mac_of(ServerSession& session, std::span<const std::uint8_t> first,
           std::span<const std::uint8_t> second, std::uint8_t* mac) {
  int error = session.hash_update(first);
  if (error == 0) error = session.hash_update(second);
  if (error == 0) error = session.hash_final(mac);
  return error;
}

// TLS: the record in `dst` (out_len bytes); returns 0 or an errno and sets
// the length that goes back in `len`.
template <class Op>
int run_tls(ServerSession& session, const Op& op, const AuthRequest& r,
            const AuthInput& in, std::uint8_t* iv_out, std::span<std::uint8_t> dst,
            std::size_t& len) {
  std::array<std::uint8_t, 64> mac{};
  const std::size_t block = session.block_size();
  const std::uint8_t* iv = in.iv.empty() ? nullptr : in.iv.data();
  if (op.op == kEncrypt) {
    std::vector<std::uint8_t> record(r.out_len);
    std::copy(in.data.begin(), in.data.end(), record.begin());
    std::size_t n = in.data.size();
    if (session.has_hash()) {
      if (const int error = mac_of(session, in.aad, in.data, mac.data()); error != 0) return error;
      std::copy_n(mac.begin(), r.tag, record.begin() + static_cast<std::ptrdiff_t>(n));
      n += r.tag;
    }
    // Padding of p bytes of value p - 1, at least one byte.
    if (block > 1)
      std::fill(record.begin() + static_cast<std::ptrdiff_t>(n), record.end(),
                static_cast<std::uint8_t>(record.size() - n - 1));
    const int error = session.cipher(true, iv, record, dst, iv_out);
    secure_wipe(record.data(), record.size());
    len = r.out_len;
    return error;
  }
  if (const int error = session.cipher(false, iv, in.data, dst, iv_out); error != 0) return error;
  std::size_t n = dst.size();
  bool bad = false;
  if (block > 1) {
    const std::size_t pad = dst[n - 1];
    if (pad + 1 > n) {
      bad = true;
    } else {
      std::uint8_t differ = 0;
      for (std::size_t i = n - 1 - pad; i < n - 1; ++i) differ |= dst[i] ^ dst[n - 1];
      bad = differ != 0;
      if (!bad) n -= pad + 1;
    }
  }
  if (!session.has_hash()) {
    len = n;  // as the module: a bad pad without a MAC goes unnoticed
    return 0;
  }
  if (r.tag > n) return EINVAL;
  n -= r.tag;
  if (const int error = mac_of(session, in.aad, dst.first(n), mac.data()); error != 0) return error;
  const bool match = constant_time_equal({mac.data(), r.tag}, dst.subspan(n, r.tag));
  secure_wipe(mac.data(), mac.size());
  if (!match || bad) return EBADMSG;
  len = n;
  return 0;
}

// SRTP: the part of auth_src that src names, en- or decrypted, to `dst`.
template <class Op>
int run_srtp(ServerSession& session, const Op& op, const AuthRequest& r,
             const AuthInput& in, std::uint8_t* iv_out, std::span<std::uint8_t> dst,
             std::span<std::uint8_t> tag_out) {
  std::array<std::uint8_t, 64> mac{};
  const std::uint8_t* iv = in.iv.empty() ? nullptr : in.iv.data();
  const bool with_mac = session.has_hash() && r.tag != 0;
  if (op.op == kEncrypt) {
    if (const int error = session.cipher(true, iv, in.data, dst, iv_out); error != 0) return error;
    if (!session.has_hash()) return 0;
    // The MAC covers auth_src as it is now: with the ciphertext in it.
    const auto before = in.aad.first(r.offset);
    const auto after = in.aad.subspan(r.offset + op.len);
    int error = session.hash_update(before);
    if (error == 0) error = session.hash_update(dst);
    if (error == 0) error = mac_of(session, after, {}, mac.data());
    if (error == 0 && with_mac) std::copy_n(mac.begin(), r.tag, tag_out.begin());
    return error;
  }
  if (session.has_hash()) {
    if (const int error = mac_of(session, in.aad, {}, mac.data()); error != 0) return error;
    const bool match = constant_time_equal({mac.data(), r.tag}, in.tag);
    secure_wipe(mac.data(), mac.size());
    if (!match) return EBADMSG;
  }
  return session.cipher(false, iv, in.data, dst, iv_out);
}

template <class Op>
IoctlReply run_auth(ServerSession& session, std::span<const std::uint8_t> bytes, const Plan& plan,
                    const AuthRequest& r) {
  Op op = read_struct<Op>(bytes);
  const AuthInput in = split_input(op, session, r, bytes.subspan(sizeof op));
  Output out(plan.out_size());
  const std::span<std::uint8_t> head = out.take(sizeof op);  // the struct, filled in last
  const std::size_t iv_back = (op.flags & kFlagWriteIv) != 0 ? iv_length(op, session) : 0;
  std::uint8_t* iv_out = iv_back != 0 ? out.take(iv_back).data() : nullptr;
  const std::span<std::uint8_t> dst = out.take(r.out_len);
  int error = EINVAL;
  std::lock_guard lock(session.mutex());
  session.hash_reset();
  switch (r.mode) {
    case Mode::aead:
      error = session.aead(op.op == kEncrypt, in.iv, in.aad, in.data, dst, r.tag);
      if (iv_out != nullptr) std::copy(in.iv.begin(), in.iv.end(), iv_out);  // GCM's stays
      // The output length goes back in `len`; `tag` points at the tag in dst or src.
      op.tag = op.op == kEncrypt ? op.dst + op.len : op.dst + op.len - r.tag;
      op.len = static_cast<std::uint32_t>(r.out_len);
      op.tag_len = static_cast<std::uint32_t>(r.tag);
      break;
    case Mode::tls: {
      std::size_t len = 0;
      error = run_tls(session, op, r, in, iv_out, dst, len);
      op.len = static_cast<std::uint32_t>(len);
      op.tag_len = static_cast<std::uint32_t>(r.tag);
      break;
    }
    case Mode::srtp: {
      const bool seal_mac = op.op == kEncrypt && session.has_hash() && r.tag != 0;
      const auto tag_out = seal_mac ? out.take(r.tag) : std::span<std::uint8_t>{};
      error = run_srtp(session, op, r, in, iv_out, dst, tag_out);
      op.tag_len = static_cast<std::uint32_t>(r.tag);
      break;
    }
  }
  if (error != 0) return fail(error);
  std::memcpy(head.data(), &op, sizeof op);
  return done(out.release());
}

}  // namespace

template <class L>
IoctlReply handle_authcrypt(Client& client, const IoctlCall& call) {
  using CryptAuthOp = typename L::CryptAuthOp;
  std::shared_ptr<ServerSession> session;
  AuthRequest request;
  return three_rounds<CryptAuthOp>(
      call,
      [&](const CryptAuthOp& op) {
        session = client.find(op.ses);
        return plan_auth(call.arg, op, session.get(), request);
      },
      [&](const Plan& plan, std::span<const std::uint8_t> in) {
        return run_auth<CryptAuthOp>(*session, in, plan, request);
      });
}

template IoctlReply handle_authcrypt<Layout64>(Client&, const IoctlCall&);
template IoctlReply handle_authcrypt<Layout32>(Client&, const IoctlCall&);

}  // namespace cryptoaccel::devcrypto::rounds
