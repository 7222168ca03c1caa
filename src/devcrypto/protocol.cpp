#include "protocol.hpp"

#include <cerrno>
#include <cstring>

#include "../abi/cryptodev.hpp"

namespace cryptoaccel::devcrypto {
namespace {

using namespace cryptodev;

IoctlReply fail(int error) {
  return {.kind = IoctlReply::Kind::error, .error = error};
}

IoctlReply retry(std::vector<ClientIov> in, std::vector<ClientIov> out) {
  return {.kind = IoctlReply::Kind::retry, .in_iov = std::move(in), .out_iov = std::move(out)};
}

IoctlReply done(std::vector<std::uint8_t> out = {}) {
  return {.kind = IoctlReply::Kind::done, .out = std::move(out)};
}

template <class T>
T read_struct(std::span<const std::uint8_t> in) {
  T value;
  std::memcpy(&value, in.data(), sizeof value);
  return value;
}

// The client memory one request reads and writes, in order, or why not.
struct Plan {
  int error = 0;
  std::vector<ClientIov> in, out;
  std::size_t in_size() const {
    std::size_t n = 0;
    for (const ClientIov& v : in) n += v.len;
    return n;
  }
  std::size_t out_size() const {
    std::size_t n = 0;
    for (const ClientIov& v : out) n += v.len;
    return n;
  }
  // A piece of zero bytes is not asked for at all.
  void read(std::uint64_t base, std::size_t len) {
    if (len != 0) in.push_back({base, len});
  }
  void write(std::uint64_t base, std::size_t len) {
    if (len != 0) out.push_back({base, len});
  }
};

Plan failed(int error) {
  return Plan{.error = error};
}

// ---- CIOCGSESSION ----------------------------------------------------------

struct SessionRequest {
  AlgorithmId id;
  std::size_t key_len;  // the cipher key, or the HMAC key; 0 for a digest
};

Plan plan_session(const Service& service, std::uint64_t arg, const SessionOp& op,
                  SessionRequest& request) {
  if (op.cipher == 0 && op.mac == 0) return failed(EINVAL);
  // cryptodev-linux can chain a cipher and an HMAC in one session; we serve
  // one algorithm per session (docs/devcrypto.md).
  if (op.cipher != 0 && op.mac != 0) return failed(EOPNOTSUPP);
  if (op.cipher != 0 && op.keylen > kMaxCipherKey) return failed(EINVAL);
  if (op.mac != 0 && op.mackeylen > kMaxHmacKey) return failed(EINVAL);
  const auto id = algorithm_of(op.cipher, op.keylen, op.mac);
  if (!id || !service.serves(*id)) return failed(EINVAL);
  const Algorithm& a = algorithm(*id);
  request.id = *id;
  Plan plan;
  plan.read(arg, sizeof op);
  if (a.kind == AlgorithmKind::mac) {
    if (op.mackeylen != 0 && op.mackey == 0) return failed(EFAULT);
    plan.read(op.mackey, op.mackeylen);
    request.key_len = op.mackeylen;
  } else if (op.cipher != 0) {
    if (op.key == 0) return failed(EFAULT);
    plan.read(op.key, op.keylen);
    request.key_len = op.keylen;
  } else {
    request.key_len = 0;
  }
  plan.write(arg, sizeof op);
  return plan;
}

IoctlReply create_session(const Service& service, Client& client, const IoctlCall& call,
                          const Plan& plan, const SessionRequest& request) {
  SessionOp op = read_struct<SessionOp>(call.in);
  const auto key = call.in.subspan(sizeof op, request.key_len);
  std::shared_ptr<ServerSession> session;
  try {
    session = std::make_shared<ServerSession>(service, request.id, key);
  } catch (const Error&) {
    return fail(EINVAL);  // the key or algorithm was refused ("Failed to load cipher")
  } catch (...) {
    return fail(ENOMEM);
  }
  // ENOSPC: this file's bound; ENOMEM: the server's (docs/devcrypto.md says why).
  if (const int error = client.add(op.ses, std::move(session), service.max_sessions()); error != 0)
    return fail(error);
  std::vector<std::uint8_t> out(plan.out_size());
  std::memcpy(out.data(), &op, sizeof op);
  return done(std::move(out));
}

// ---- CIOCCRYPT -------------------------------------------------------------

Plan plan_crypt(std::uint64_t arg, const CryptOp& op, const ServerSession* session) {
  if (op.op != kEncrypt && op.op != kDecrypt) return failed(EINVAL);
  if (session == nullptr) return failed(EINVAL);  // "invalid session ID"
  const Algorithm& a = session->algorithm();
  if (a.kind == AlgorithmKind::aead) return failed(EINVAL);  // CIOCAUTHCRYPT's
  if (op.len > kMaxData) return failed(EMSGSIZE);
  if (op.len != 0 && op.src == 0) return failed(EFAULT);
  Plan plan;
  plan.read(arg, sizeof op);
  plan.write(arg, sizeof op);
  if (a.kind == AlgorithmKind::cipher) {
    if (op.len % a.input_multiple != 0 || (op.len != 0 && op.len < a.min_input))
      return failed(EINVAL);  // "data size isn't a multiple of block size"
    if (op.len != 0 && op.dst == 0) return failed(EFAULT);
    if (op.iv != 0) plan.read(op.iv, a.iv_size);
    plan.read(op.src, op.len);
    plan.write(op.dst, op.len);
    if (op.iv != 0 && (op.flags & kFlagWriteIv) != 0) plan.write(op.iv, a.iv_size);
  } else {
    plan.read(op.src, op.len);
    if (ServerSession::finishes(op.flags, op.len)) {
      if (op.mac == 0) return failed(EFAULT);
      plan.write(op.mac, a.output_size);
    }
  }
  return plan;
}

IoctlReply run_crypt(ServerSession& session, const IoctlCall& call, const Plan& plan) {
  const CryptOp op = read_struct<CryptOp>(call.in);
  const Algorithm& a = session.algorithm();
  std::vector<std::uint8_t> out(plan.out_size());
  std::memcpy(out.data(), &op, sizeof op);
  std::span<const std::uint8_t> rest = call.in.subspan(sizeof op);
  std::lock_guard lock(session.mutex());
  int error;
  if (a.kind == AlgorithmKind::cipher) {
    const std::uint8_t* iv = nullptr;
    if (op.iv != 0) {
      iv = rest.data();
      rest = rest.subspan(a.iv_size);
    }
    const std::span<std::uint8_t> dst(out.data() + sizeof op, op.len);
    std::uint8_t* iv_out = out.size() > sizeof op + op.len ? dst.data() + op.len : nullptr;
    error = session.cipher(op.op == kEncrypt, iv, rest.first(op.len), dst, iv_out);
  } else {
    bool finished = false;
    error = session.hash(op.flags, rest.first(op.len), out.data() + sizeof op, finished);
  }
  if (error != 0) return fail(error);
  return done(std::move(out));
}

// ---- CIOCAUTHCRYPT ---------------------------------------------------------

std::size_t tag_length(const CryptAuthOp& op, const Algorithm& a) {
  return op.tag_len == 0 ? a.output_size : op.tag_len;
}

Plan plan_auth(std::uint64_t arg, const CryptAuthOp& op, const ServerSession* session) {
  if (session == nullptr) return failed(EINVAL);
  const Algorithm& a = session->algorithm();
  if (a.kind != AlgorithmKind::aead) return failed(EINVAL);
  if (op.op != kEncrypt && op.op != kDecrypt) return failed(EINVAL);
  // TLS and SRTP record modes need composite ciphers we do not offer.
  if ((op.flags & (kFlagAeadTls | kFlagAeadSrtp)) != 0) return failed(EINVAL);
  const std::size_t tag = tag_length(op, a);
  if (!a.tag_sizes.contains(tag)) return failed(EINVAL);  // "Illegal tag length"
  const bool seal = op.op == kEncrypt;
  if (!seal && op.len < tag) return failed(EINVAL);
  if (op.len > kMaxData || op.auth_len > kMaxData || op.len + op.auth_len > kMaxData)
    return failed(EMSGSIZE);
  // The IV is the session's length (12); a request without one has no nonce.
  if (op.iv == 0) return failed(EINVAL);
  if ((op.auth_len != 0 && op.auth_src == 0) || (op.len != 0 && op.src == 0)) return failed(EFAULT);
  const std::size_t out_len = seal ? op.len + tag : op.len - tag;
  if (out_len != 0 && op.dst == 0) return failed(EFAULT);
  Plan plan;
  plan.read(arg, sizeof op);
  plan.read(op.iv, a.iv_size);
  plan.read(op.auth_src, op.auth_len);
  plan.read(op.src, op.len);
  plan.write(arg, sizeof op);
  plan.write(op.dst, out_len);
  return plan;
}

IoctlReply run_auth(ServerSession& session, const IoctlCall& call, const Plan& plan) {
  CryptAuthOp op = read_struct<CryptAuthOp>(call.in);
  const Algorithm& a = session.algorithm();
  const std::size_t tag = tag_length(op, a);
  const bool seal = op.op == kEncrypt;
  std::span<const std::uint8_t> rest = call.in.subspan(sizeof op);
  const auto iv = rest.first(a.iv_size);
  const auto aad = rest.subspan(a.iv_size, op.auth_len);
  const auto src = rest.subspan(a.iv_size + op.auth_len, op.len);
  std::vector<std::uint8_t> out(plan.out_size());
  const std::span<std::uint8_t> dst(out.data() + sizeof op, out.size() - sizeof op);
  int error;
  {
    std::lock_guard lock(session.mutex());
    error = session.aead(seal, iv, aad, src, dst, tag);
  }
  if (error != 0) return fail(error);
  // The output length goes back in `len`; a seal's tag follows the ciphertext.
  if (seal) op.tag = op.dst + op.len;
  op.len = static_cast<std::uint32_t>(dst.size());
  op.tag_len = static_cast<std::uint32_t>(tag);
  std::memcpy(out.data(), &op, sizeof op);
  return done(std::move(out));
}

// ---- the rounds --------------------------------------------------------------

// Rounds 1 to 3 of an ioctl whose struct points to buffers. `plan_of` turns
// the struct into the plan; `run` does the work with round 3's bytes.
template <class Op, class PlanOf, class Run>
IoctlReply three_rounds(const IoctlCall& call, PlanOf plan_of, Run run) {
  if (call.in.empty() && call.out_size == 0) return retry({{call.arg, sizeof(Op)}}, {});
  if (call.in.size() < sizeof(Op)) return fail(EINVAL);
  const Plan plan = plan_of(read_struct<Op>(call.in));
  if (plan.error != 0) return fail(plan.error);
  if (call.out_size == 0 && call.in.size() == sizeof(Op)) return retry(plan.in, plan.out);
  // Round 3: the struct was read again with the buffers. A client that
  // changed it in between asks for something else than what was fetched.
  if (call.in.size() != plan.in_size() || call.out_size != plan.out_size()) return fail(EINVAL);
  return run(plan);
}

}  // namespace

IoctlReply handle_ioctl(const Service& service, Client& client, const IoctlCall& call) {
  switch (call.cmd) {
    case kCiocGSession: {
      SessionRequest request{};
      return three_rounds<SessionOp>(
          call, [&](const SessionOp& op) { return plan_session(service, call.arg, op, request); },
          [&](const Plan& plan) { return create_session(service, client, call, plan, request); });
    }
    case kCiocCrypt: {
      std::shared_ptr<ServerSession> session;
      return three_rounds<CryptOp>(
          call,
          [&](const CryptOp& op) {
            session = client.find(op.ses);
            return plan_crypt(call.arg, op, session.get());
          },
          [&](const Plan& plan) { return run_crypt(*session, call, plan); });
    }
    case kCiocAuthCrypt: {
      std::shared_ptr<ServerSession> session;
      return three_rounds<CryptAuthOp>(
          call,
          [&](const CryptAuthOp& op) {
            session = client.find(op.ses);
            return plan_auth(call.arg, op, session.get());
          },
          [&](const Plan& plan) { return run_auth(*session, call, plan); });
    }
    case kCiocFSession: {
      if (call.in.empty()) return retry({{call.arg, sizeof(std::uint32_t)}}, {});
      if (call.in.size() != sizeof(std::uint32_t)) return fail(EINVAL);
      // cryptodev-linux means ENOENT here (its check of the list cursor never fires).
      return client.remove(read_struct<std::uint32_t>(call.in)) ? done() : fail(ENOENT);
    }
    case kCiocGSessInfo: {
      if (call.in.empty())
        return retry({{call.arg, sizeof(SessionInfoOp)}}, {{call.arg, sizeof(SessionInfoOp)}});
      if (call.in.size() != sizeof(SessionInfoOp) || call.out_size != sizeof(SessionInfoOp))
        return fail(EINVAL);
      SessionInfoOp info = read_struct<SessionInfoOp>(call.in);
      const auto session = client.find(info.ses);
      if (session == nullptr) return fail(EINVAL);
      const Algorithm& a = session->algorithm();
      const bool cipher = a.kind == AlgorithmKind::cipher || a.kind == AlgorithmKind::aead;
      info.cipher_info = {};
      info.hash_info = {};
      AlgInfo& which = cipher ? info.cipher_info : info.hash_info;
      std::snprintf(which.cra_name, sizeof which.cra_name, "%s", generic_name(a.id));
      std::snprintf(which.cra_driver_name, sizeof which.cra_driver_name, "%s",
                    service.driver_name().c_str());
      info.alignmask = 0;
      info.flags = service.hardware() ? kSessionInfoHardware : 0;
      std::vector<std::uint8_t> out(sizeof info);
      std::memcpy(out.data(), &info, sizeof info);
      return done(std::move(out));
    }
    default:
      return fail(EINVAL);  // cryptodev-linux's answer to an unknown command
  }
}

}  // namespace cryptoaccel::devcrypto
