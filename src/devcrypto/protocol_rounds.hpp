// What the ioctl handlers of protocol*.cpp share: the replies, the plan of
// the client memory a request reads and writes, and the rounds of an ioctl
// whose struct points to buffers (protocol.hpp explains the rounds).
#pragma once

#include <cerrno>
#include <cstring>
#include <memory>

#include "../abi/cryptodev.hpp"
#include "crypt_gathering.hpp"
#include "protocol.hpp"

namespace cryptoaccel::devcrypto::rounds {

inline IoctlReply fail(int error) {
  return {.kind = IoctlReply::Kind::error, .error = error};
}

inline IoctlReply retry(std::vector<ClientIov> in, std::vector<ClientIov> out) {
  return {.kind = IoctlReply::Kind::retry, .in_iov = std::move(in), .out_iov = std::move(out)};
}

inline IoctlReply done(std::vector<std::uint8_t> out = {}) {
  return {.kind = IoctlReply::Kind::done, .out = std::move(out)};
}

// The request needs the caller's memory and this call may not touch it
// (protocol.hpp): nothing has been read or changed yet.
inline IoctlReply deferred() {
  return {.kind = IoctlReply::Kind::defer};
}

inline bool must_defer(const IoctlCall& call) {
  return call.memory != nullptr && call.shared_worker;
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
  // Can the rounds of one ioctl carry it, or must the server reach the
  // caller's memory itself?
  bool fits_one_round() const {
    return in_size() <= kMaxRoundBytes && out_size() <= kMaxRoundBytes;
  }
  // A piece of zero bytes is not asked for at all.
  void read(std::uint64_t base, std::size_t len) {
    if (len != 0) in.push_back({base, len});
  }
  void write(std::uint64_t base, std::size_t len) {
    if (len != 0) out.push_back({base, len});
  }
};

inline Plan failed(int error) {
  return Plan{.error = error};
}

// Appends bytes to a reply's output, in the order the plan writes them.
class Output {
 public:
  explicit Output(std::size_t size) : bytes_(size) {}
  std::span<std::uint8_t> take(std::size_t n) {
    const std::span<std::uint8_t> piece(bytes_.data() + at_, n);
    at_ += n;
    return piece;
  }
  template <class T>
  void put(const T& value) {
    std::memcpy(take(sizeof value).data(), &value, sizeof value);
  }
  std::vector<std::uint8_t> release() { return std::move(bytes_); }

 private:
  std::vector<std::uint8_t> bytes_;
  std::size_t at_ = 0;
};

// Reads a plan's input from the caller's memory: 0 or an errno.
inline int read_input(const IoctlCall& call, const Plan& plan, std::vector<std::uint8_t>& in) {
  if (call.memory == nullptr) return EMSGSIZE;
  in.resize(plan.in_size());
  return call.memory->read(plan.in, in);
}

// Rounds 1 to 3 of an ioctl whose struct points to buffers and which writes
// the struct back. `plan_of` turns the struct into the plan (and may note
// what it found, for `run`); `run(plan, in)` does the work with the plan's
// input, the struct first, and answers with its output.
template <class Op, class PlanOf, class Run>
IoctlReply three_rounds(const IoctlCall& call, PlanOf plan_of, Run run) {
  if (call.in.empty() && call.out_size == 0) return retry({{call.arg, sizeof(Op)}}, {});
  if (call.in.size() < sizeof(Op)) return fail(EINVAL);
  const Plan plan = plan_of(read_struct<Op>(call.in));
  if (plan.error != 0) return fail(plan.error);
  if (call.out_size == 0 && call.in.size() == sizeof(Op)) {
    if (plan.fits_one_round()) return retry(plan.in, plan.out);
    // Too large for round 3: its work here, through the caller's memory.
    if (must_defer(call)) return deferred();
    std::vector<std::uint8_t> in;
    if (const int error = read_input(call, plan, in); error != 0) return fail(error);
    const Plan again = plan_of(read_struct<Op>(in));
    if (again.error != 0) return fail(again.error);
    if (again.in != plan.in || again.out != plan.out) return fail(EINVAL);  // changed meanwhile
    IoctlReply reply = run(again, std::span<const std::uint8_t>(in));
    if (reply.kind != IoctlReply::Kind::done) return reply;
    if (const int error = call.memory->write(again.out, reply.out); error != 0) return fail(error);
    return done();
  }
  // Round 3: the struct was read again with the buffers. A client that
  // changed it in between asks for something else than what was fetched.
  if (call.in.size() != plan.in_size() || call.out_size != plan.out_size()) return fail(EINVAL);
  return run(plan, call.in);
}

// CIOCCRYPT's plan and work, shared with CIOCASYNCCRYPT (which writes the
// struct back only when the request is fetched). `Op` is the CryptOp of
// the caller's layout (cryptodev::Layout64 or Layout32).
template <class Op>
Plan plan_crypt(std::uint64_t arg, const Op& op, const ServerSession* session, bool write_struct);
// The request's output in the order of plan.out; 0 or an errno. With
// `gathering`, a synchronous cipher request meets others inside the server.
template <class Op>
int run_crypt(ServerSession& session, std::span<const std::uint8_t> in, const Plan& plan,
              bool write_struct, std::vector<std::uint8_t>& out,
              CryptGathering* gathering = nullptr);

// The ioctls of one layout `L` (cryptodev::Layout64 or Layout32).
template <class L>
IoctlReply handle_authcrypt(Client& client, const IoctlCall& call);
template <class L>
IoctlReply handle_async_crypt(Client& client, const IoctlCall& call);
template <class L>
IoctlReply handle_async_fetch(Client& client, const IoctlCall& call);
template <class L>
IoctlReply handle_key(const Service& service, const IoctlCall& call);

}  // namespace cryptoaccel::devcrypto::rounds
