// cryptodev-linux's asynchronous interface: CIOCASYNCCRYPT queues a
// CIOCCRYPT request and returns, CIOCASYNCFETCH returns the oldest done one
// (its struct to the fetch's argument, its output, IV and digest to the
// pointers it was submitted with) or EBUSY, and poll() says POLLIN when one
// is done and POLLOUT while fewer than 64 are queued.
//
// The client's input is read when a request is submitted, as the module
// pins it then. A cipher request with its own IV, on a session with no
// hash, is started on a driver that gathers (mb) where one serves the
// session: it waits there to meet other requests, of this client and of
// others, in one burst, until a burst fills, or the client polls or
// fetches (then whatever waits runs at once). Any other request is done
// as soon as CIOCASYNCCRYPT returns. Output waits in the server until it
// is fetched, so a client sees it written only by the fetch, never while
// it may still be using its buffers. Errors follow the module: an unknown
// session, COP_FLAG_NO_ZC and a full queue fail the submission; anything
// else the request does wrong is its result, returned by the fetch. Ours
// alone: above kMaxData (1 MiB) the submission fails with EMSGSIZE, and so
// does one too large for a CUSE round when the server may not reach the
// caller's memory (client_memory.hpp).
#include <algorithm>
#include <limits>
#include <type_traits>

#include "protocol_rounds.hpp"

namespace cryptoaccel::devcrypto::rounds {
namespace {

using namespace cryptodev;

// Queues the result of a submitted request and answers the submission.
IoctlReply queued(Client& client, AsyncResult result) {
  const int error = client.queue_result(std::move(result));
  return error == 0 ? done() : fail(error);
}

template <class Op>
AsyncResult result_of(const Op& op, int error) {
  AsyncResult r;
  r.error = error;
  r.layout32 = std::is_same_v<Op, Layout32::CryptOp>;
  r.out.resize(sizeof op);
  std::memcpy(r.out.data(), &op, sizeof op);
  return r;
}

// What a fetch in layout `To` writes: the result's bytes, their struct in
// that layout. A request is fetched in the layout it was queued in, unless
// a program of the other one fetches it through the same open file; the
// module converts it then too (its compat fetch truncates the pointers).
template <class To>
std::vector<std::uint8_t> fetched_bytes(const AsyncResult& r) {
  constexpr bool to32 = std::is_same_v<To, Layout32>;
  if (r.layout32 == to32) return r.out;
  using From = std::conditional_t<to32, Layout64, Layout32>;
  const auto op = read_struct<typename From::CryptOp>(r.out);
  const typename To::CryptOp converted = relaid<To, From>(op);
  std::vector<std::uint8_t> bytes(sizeof converted);
  std::memcpy(bytes.data(), &converted, sizeof converted);
  bytes.insert(bytes.end(), r.out.begin() + static_cast<std::ptrdiff_t>(sizeof op), r.out.end());
  return bytes;
}

}  // namespace

template <class L>
IoctlReply handle_async_crypt(Client& client, const IoctlCall& call) {
  using CryptOp = typename L::CryptOp;
  if (call.in.empty()) return retry({{call.arg, sizeof(CryptOp)}}, {});
  if (call.in.size() < sizeof(CryptOp)) return fail(EINVAL);
  const CryptOp op = read_struct<CryptOp>(call.in);
  const std::shared_ptr<ServerSession> session = client.find(op.ses);
  if (session == nullptr) return fail(EINVAL);                 // "invalid session ID"
  if ((op.flags & kFlagNoZeroCopy) != 0) return fail(EINVAL);  // the module's rule
  if (!client.has_room()) return fail(EBUSY);
  // Refused now, not queued as a result that would fail every fetch after.
  if (op.len > kMaxData) return fail(EMSGSIZE);
  const Plan plan = plan_crypt(call.arg, op, session.get(), false);
  if (plan.error != 0) return queued(client, result_of(op, plan.error));
  std::span<const std::uint8_t> in = call.in;
  std::vector<std::uint8_t> fetched;
  // The fetch may come in the other layout, whose struct is larger: what it
  // writes must fit a round in either, or the result goes through memory.
  constexpr std::size_t kLargerStruct =
      std::max(sizeof(Layout32::CryptOp), sizeof(Layout64::CryptOp));
  if (plan.fits_one_round() && kLargerStruct + plan.out_size() <= kMaxRoundBytes) {
    // Round 2 reads the inputs, unless the struct is all there is.
    if (call.in.size() == sizeof op && plan.in_size() != sizeof op) return retry(plan.in, {});
    if (call.in.size() != plan.in_size()) return fail(EINVAL);  // changed between rounds
  } else {
    // The input, or what the fetch writes, is too large for a round: both
    // go through the caller's memory, and reading now proves the server may.
    if (must_defer(call)) return deferred();
    if (const int error = read_input(call, plan, fetched); error != 0) return fail(error);
    if (std::memcmp(fetched.data(), &op, sizeof op) != 0) return fail(EINVAL);  // changed meanwhile
    in = fetched;
  }
  if (session->may_start(op.iv != 0, op.flags, op.len)) {
    AsyncResult result = result_of(op, 0);
    result.out_iov = plan.out;  // the output alone: no IV written back, no hash
    result.out.resize(sizeof op + op.len);
    const auto src = in.subspan(sizeof op + session->iv_size(), op.len);
    auto job = std::make_unique<StartedCipher>();
    job->data = {result.out.data() + sizeof op, op.len};
    std::memcpy(job->data.data(), src.data(), op.len);  // runs in place
    client.hook_up(*job);
    bool started = false;
    {
      std::lock_guard lock(session->mutex());
      started = session->start_cipher(op.op == kEncrypt, in.data() + sizeof op, *job);
    }
    if (started) {
      result.session = session;
      result.started = std::move(job);
      return queued(client, std::move(result));
    }
  }
  std::vector<std::uint8_t> out;
  const int error = run_crypt<CryptOp>(*session, in, plan, false, out);
  AsyncResult result = result_of(op, error);
  if (error == 0) {
    result.out_iov = plan.out;
    result.out.insert(result.out.end(), out.begin(), out.end());
  }
  return queued(client, std::move(result));
}

template <class L>
IoctlReply handle_async_fetch(Client& client, const IoctlCall& call) {
  using CryptOp = typename L::CryptOp;
  // The caller's thread claims the oldest result in round 1 and gets the
  // same one in round 2, whatever its other threads fetch meanwhile.
  const AsyncResult* result = client.claim_result(call.caller);
  if (result == nullptr) return fail(EBUSY);  // nothing done yet
  if (result->error != 0) {
    const int error = result->error;
    client.deliver_result(call.caller);
    return fail(error);
  }
  // A 64-bit program's buffers above 4 GiB are beyond a 32-bit fetcher's
  // reach (the kernel refuses such addresses to it): the result cannot be
  // copied out, and is over, as the module's fetch that fails to copy out.
  if constexpr (std::is_same_v<L, Layout32>) {
    for (const ClientIov& v : result->out_iov)
      if (v.base > std::numeric_limits<std::uint32_t>::max() ||
          v.len > std::numeric_limits<std::uint32_t>::max() - v.base) {
        client.deliver_result(call.caller);
        return fail(EFAULT);
      }
  }
  std::vector<ClientIov> out{{call.arg, sizeof(CryptOp)}};
  out.insert(out.end(), result->out_iov.begin(), result->out_iov.end());
  std::size_t size = 0;
  for (const ClientIov& v : out) size += v.len;
  if (call.out_size != size && size > kMaxRoundBytes) {
    // Through the caller's memory, as the submission read its input. The
    // claim stays with the caller's thread until then.
    if (must_defer(call)) return deferred();
    const int error =
        call.memory != nullptr ? call.memory->write(out, fetched_bytes<L>(*result)) : EMSGSIZE;
    client.deliver_result(call.caller);
    return error == 0 ? done() : fail(error);
  }
  if (call.out_size != size) return retry({}, std::move(out));
  std::vector<std::uint8_t> bytes = fetched_bytes<L>(*result);
  client.deliver_result(call.caller);
  return done(std::move(bytes));
}

template IoctlReply handle_async_crypt<Layout64>(Client&, const IoctlCall&);
template IoctlReply handle_async_crypt<Layout32>(Client&, const IoctlCall&);
template IoctlReply handle_async_fetch<Layout64>(Client&, const IoctlCall&);
template IoctlReply handle_async_fetch<Layout32>(Client&, const IoctlCall&);

}  // namespace cryptoaccel::devcrypto::rounds
