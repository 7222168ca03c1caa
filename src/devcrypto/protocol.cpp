#include "protocol.hpp"

#include <cerrno>
#include <cstring>

#include "../abi/cryptodev.hpp"
#include "protocol_rounds.hpp"

namespace cryptoaccel::devcrypto {
namespace rounds {

using namespace cryptodev;

// ---- CIOCCRYPT -------------------------------------------------------------

template <class Op>
Plan plan_crypt(std::uint64_t arg, const Op& op, const ServerSession* session, bool write_struct) {
  if (op.op != kEncrypt && op.op != kDecrypt) return failed(EINVAL);
  if (session == nullptr) return failed(EINVAL);  // "invalid session ID"
  if (session->aead()) return failed(EINVAL);     // CIOCAUTHCRYPT's
  if (op.len > kMaxData) return failed(EMSGSIZE);
  // cryptodev-linux takes a null buffer as an empty one, and the request
  // then fails in the kernel's crypto with EINVAL.
  if (op.len != 0 && op.src == 0) return failed(EINVAL);
  const bool cipher = session->has_cipher();
  if (cipher && !session->cipher_takes(op.len))
    return failed(EINVAL);  // "data size isn't a multiple of block size"
  if (cipher && op.len != 0 && op.dst == 0) return failed(EINVAL);
  const std::size_t iv_size = op.iv != 0 ? session->iv_size() : 0;
  Plan plan;
  plan.read(arg, sizeof op);
  plan.read(op.iv, iv_size);
  plan.read(op.src, op.len);
  if (write_struct) plan.write(arg, sizeof op);
  if (cipher) plan.write(op.dst, op.len);
  if ((op.flags & kFlagWriteIv) != 0) plan.write(op.iv, iv_size);
  if (session->has_hash() && ServerSession::finishes(op.flags, op.len)) {
    if (op.mac == 0) return failed(EFAULT);
    plan.write(op.mac, session->digest_size());
  }
  return plan;
}

namespace {

// A synchronous cipher request that meets others inside the server in one
// burst (crypt_gathering.hpp), its output to `dst`: 0 or an errno; false
// when it was not started (no driver that gathers serves the session).
bool run_gathered(ServerSession& session, CryptGathering& gathering, bool encrypt,
                  const std::uint8_t* iv, std::span<const std::uint8_t> src,
                  std::span<std::uint8_t> dst, int& error) {
  StartedCipher job;
  std::memcpy(dst.data(), src.data(), src.size());  // runs in place
  job.data = dst;
  if (!session.start_cipher(encrypt, iv, job)) return false;
  gathering.wait(session, job);
  error = job.error();
  return true;
}

}  // namespace

template <class Op>
int run_crypt(ServerSession& session, std::span<const std::uint8_t> in, const Plan& plan,
              bool write_struct, std::vector<std::uint8_t>& bytes, CryptGathering* gathering) {
  const Op op = read_struct<Op>(in);
  std::span<const std::uint8_t> rest = in.subspan(sizeof op);
  const bool encrypt = op.op == kEncrypt;
  const std::size_t iv_size = op.iv != 0 ? session.iv_size() : 0;
  const std::uint8_t* iv = iv_size != 0 ? rest.data() : nullptr;
  const auto src = rest.subspan(iv_size, op.len);
  Output out(plan.out_size());
  if (write_struct) out.put(op);
  if (gathering != nullptr && session.may_start(iv != nullptr, op.flags, op.len)) {
    const CryptGathering::Inside inside(*gathering);
    if (gathering->company()) {
      const std::span<std::uint8_t> dst = out.take(op.len);
      std::lock_guard lock(session.mutex());
      int error = 0;
      if (run_gathered(session, *gathering, encrypt, iv, src, dst, error)) {
        if (error == 0) bytes = out.release();
        return error;
      }
      error = session.cipher(encrypt, iv, src, dst, nullptr);
      if (error == 0) bytes = out.release();
      return error;
    }
  }
  std::lock_guard lock(session.mutex());
  const bool cipher = session.has_cipher(), hash = session.has_hash();
  // Flags 0 or RESET start a new hash: a running one is dropped.
  if (hash && (op.flags == 0 || (op.flags & kFlagReset) != 0)) session.hash_reset();
  const std::span<std::uint8_t> dst = cipher ? out.take(op.len) : std::span<std::uint8_t>{};
  std::uint8_t* iv_out =
      (op.flags & kFlagWriteIv) != 0 && iv_size != 0 ? out.take(iv_size).data() : nullptr;
  // cryptodev-linux hashes before encrypting and after decrypting.
  int error = 0;
  if (hash && encrypt) error = session.hash_update(src);
  if (error == 0 && cipher) error = session.cipher(encrypt, iv, src, dst, iv_out);
  if (error == 0 && hash && !encrypt) error = session.hash_update(cipher ? dst : src);
  if (error == 0 && hash && ServerSession::finishes(op.flags, op.len))
    error = session.hash_final(out.take(session.digest_size()).data());
  if (error == 0) bytes = out.release();
  return error;
}

// Both layouts' (protocol_async.cpp shares them).
template Plan plan_crypt(std::uint64_t, const Layout64::CryptOp&, const ServerSession*, bool);
template Plan plan_crypt(std::uint64_t, const Layout32::CryptOp&, const ServerSession*, bool);
template int run_crypt<Layout64::CryptOp>(ServerSession&, std::span<const std::uint8_t>,
                                          const Plan&, bool, std::vector<std::uint8_t>&,
                                          CryptGathering*);
template int run_crypt<Layout32::CryptOp>(ServerSession&, std::span<const std::uint8_t>,
                                          const Plan&, bool, std::vector<std::uint8_t>&,
                                          CryptGathering*);

}  // namespace rounds

namespace {

using namespace cryptodev;
using namespace rounds;

// ---- CIOCGSESSION ----------------------------------------------------------

struct SessionRequest {
  SessionParts parts;  // without the keys, which come in round 3
  std::size_t key_len = 0;
  std::size_t mac_key_len = 0;
};

template <class Op>
Plan plan_session(const Service& service, std::uint64_t arg, const Op& op,
                  SessionRequest& request) {
  if (op.cipher == 0 && op.mac == 0) return failed(EINVAL);
  bool aead = false;
  if (op.cipher != 0) {
    if (op.keylen > kMaxCipherKey) return failed(EINVAL);
    if (op.keylen != 0 && op.key == 0) return failed(EFAULT);
    if (op.cipher == kNull) {
      request.parts.null_cipher = true;  // any key of up to 64 bytes, unused
    } else {
      const auto id = algorithm_of(op.cipher, op.keylen, 0);
      if (!id || !service.serves(*id)) return failed(EINVAL);
      request.parts.cipher = id;
      aead = algorithm(*id).kind == AlgorithmKind::aead;
    }
    request.key_len = op.keylen;
  }
  if (op.mac != 0) {
    const auto id = algorithm_of(0, 0, op.mac);
    if (!id) return failed(EINVAL);
    // cryptodev-linux gives an AEAD cipher no hash: the mac id is checked,
    // then ignored; a mac key makes the module hand GCM a composite
    // (authenc) key, which it refuses.
    if (aead && op.mackeylen != 0) return failed(EINVAL);
    if (!aead) {
      if (op.mackeylen > kMaxHmacKey) return failed(EINVAL);  // even for a digest
      if (!service.serves(*id)) return failed(EINVAL);
      request.parts.hash = id;
      if (algorithm(*id).kind == AlgorithmKind::mac) {
        if (op.mackeylen != 0 && op.mackey == 0) return failed(EFAULT);
        request.mac_key_len = op.mackeylen;
      }
    }
  }
  Plan plan;
  plan.read(arg, sizeof op);
  plan.read(op.key, request.key_len);
  plan.read(op.mackey, request.mac_key_len);
  plan.write(arg, sizeof op);
  return plan;
}

template <class Op>
IoctlReply create_session(const Service& service, Client& client, std::span<const std::uint8_t> in,
                          const Plan& plan, SessionRequest& request) {
  Op op = read_struct<Op>(in);
  request.parts.cipher_key = in.subspan(sizeof op, request.key_len);
  request.parts.mac_key = in.subspan(sizeof op + request.key_len, request.mac_key_len);
  if (request.parts.null_cipher) request.parts.cipher_key = {};
  std::shared_ptr<ServerSession> session;
  try {
    session = std::make_shared<ServerSession>(service, request.parts);
  } catch (const Error&) {
    return fail(EINVAL);  // the key or algorithm was refused ("Failed to load cipher")
  } catch (...) {
    return fail(ENOMEM);
  }
  // ENOSPC: this file's bound; ENOMEM: the server's (docs/devcrypto.md says why).
  if (const int error = client.add(op.ses, std::move(session), service.max_sessions()); error != 0)
    return fail(error);
  Output out(plan.out_size());
  out.put(op);
  return done(out.release());
}

// ---- CIOCGSESSINFO -----------------------------------------------------------

IoctlReply session_info(const Service& service, Client& client, const IoctlCall& call) {
  if (call.in.empty())
    return retry({{call.arg, sizeof(SessionInfoOp)}}, {{call.arg, sizeof(SessionInfoOp)}});
  if (call.in.size() != sizeof(SessionInfoOp) || call.out_size != sizeof(SessionInfoOp))
    return fail(EINVAL);
  SessionInfoOp info = read_struct<SessionInfoOp>(call.in);
  const auto session = client.find(info.ses);
  if (session == nullptr) return fail(EINVAL);
  info.cipher_info = {};
  info.hash_info = {};
  const auto describe = [&](AlgInfo& which, const char* name) {
    std::snprintf(which.cra_name, sizeof which.cra_name, "%s", name);
    std::snprintf(which.cra_driver_name, sizeof which.cra_driver_name, "%s",
                  service.driver_name().c_str());
  };
  if (session->has_cipher()) describe(info.cipher_info, session->cipher_name());
  if (session->has_hash()) describe(info.hash_info, session->hash_name());
  info.alignmask = 0;
  info.flags = service.hardware() ? kSessionInfoHardware : 0;
  Output out(sizeof info);
  out.put(info);
  return done(out.release());
}

// ---- CIOCCPHASH ------------------------------------------------------------

IoctlReply copy_hash(Client& client, const IoctlCall& call) {
  if (call.in.empty()) return retry({{call.arg, sizeof(CopyHashOp)}}, {});
  if (call.in.size() != sizeof(CopyHashOp)) return fail(EINVAL);
  const auto op = read_struct<CopyHashOp>(call.in);
  const auto to = client.find(op.dst_ses), from = client.find(op.src_ses);
  // cryptodev-linux's crypto_get_sessions_by_sid answers ENOENT here.
  if (to == nullptr || from == nullptr) return fail(ENOENT);
  if (to == from) return done();
  std::scoped_lock lock(to->mutex(), from->mutex());
  const int error = to->copy_hash_from(*from);
  return error == 0 ? done() : fail(error);
}

// The ioctls whose structs hold no pointer: one number in both layouts.
IoctlReply handle_either_layout(const Service& service, Client& client, const IoctlCall& call) {
  switch (call.cmd) {
    case kCiocFSession: {
      if (call.in.empty()) return retry({{call.arg, sizeof(std::uint32_t)}}, {});
      if (call.in.size() != sizeof(std::uint32_t)) return fail(EINVAL);
      // cryptodev-linux means ENOENT here (its check of the list cursor never fires).
      return client.remove(read_struct<std::uint32_t>(call.in)) ? done() : fail(ENOENT);
    }
    case kCiocGSessInfo:
      return session_info(service, client, call);
    case kCiocCopyHash:
      return copy_hash(client, call);
    case kCiocAsymFeat: {
      // OCF's modular exponentiations through CIOCKEY (cryptodev-linux has none).
      // Answered only into the 4 bytes the retry asked for, never more
      // than a round declared.
      if (call.out_size != sizeof(std::uint32_t))
        return retry({}, {{call.arg, sizeof(std::uint32_t)}});
      Output out(sizeof(std::uint32_t));
      out.put(kFeatureModExp | kFeatureModExpCrt);
      return done(out.release());
    }
    case kCrioGet:
      // cryptodev-linux answers a new descriptor of the same open file. A
      // CUSE server cannot make a descriptor in its caller's process; the
      // preload library libcryptoaccel-crioget.so does it there on this
      // answer (docs/devcrypto.md, "CRIOGET").
      return fail(EOPNOTSUPP);
    default:
      return fail(EINVAL);  // cryptodev-linux's answer to an unknown command
  }
}

// The ioctls of the caller's layout `L`.
template <class L>
IoctlReply handle_in_layout(const Service& service, Client& client, const IoctlCall& call) {
  using SessionOp = typename L::SessionOp;
  using CryptOp = typename L::CryptOp;
  switch (call.cmd) {
    case L::kCiocGSession: {
      SessionRequest request;
      return three_rounds<SessionOp>(
          call, [&](const SessionOp& op) { return plan_session(service, call.arg, op, request); },
          [&](const Plan& plan, std::span<const std::uint8_t> in) {
            return create_session<SessionOp>(service, client, in, plan, request);
          });
    }
    case L::kCiocCrypt: {
      std::shared_ptr<ServerSession> session;
      bool may_start = false;
      IoctlReply reply = three_rounds<CryptOp>(
          call,
          [&](const CryptOp& op) {
            session = client.find(op.ses);
            may_start = session != nullptr && session->may_start(op.iv != 0, op.flags, op.len);
            return plan_crypt(call.arg, op, session.get(), true);
          },
          [&](const Plan& plan, std::span<const std::uint8_t> in) {
            client.unmark_coming(call.caller);
            std::vector<std::uint8_t> out;
            const int error =
                run_crypt<CryptOp>(*session, in, plan, true, out, &service.gathering());
            return error == 0 ? done(std::move(out)) : fail(error);
          });
      // Its struct read, its data asked for: company for requests inside.
      if (may_start && reply.kind == IoctlReply::Kind::retry && !call.in.empty())
        client.mark_coming(call.caller, service.gathering());
      return reply;
    }
    case L::kCiocAuthCrypt:
      return handle_authcrypt<L>(client, call);
    case L::kCiocAsyncCrypt:
      return handle_async_crypt<L>(client, call);
    case L::kCiocAsyncFetch:
      return handle_async_fetch<L>(client, call);
    case L::kCiocKey:
      return handle_key<L>(service, call);
    default:
      return handle_either_layout(service, client, call);
  }
}

}  // namespace

IoctlReply handle_ioctl(const Service& service, Client& client, const IoctlCall& call) {
  return call.layout32 ? handle_in_layout<Layout32>(service, client, call)
                       : handle_in_layout<Layout64>(service, client, call);
}

}  // namespace cryptoaccel::devcrypto
