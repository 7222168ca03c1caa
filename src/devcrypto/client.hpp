// One open file of the device: the sessions it created, at most
// Service::max_sessions() of them, and with every other client at most the
// server's quota. Closing the file frees them all (keys are wiped as each
// session ends) and returns them to the quota. Thread-safe: a client's
// threads may call into the server at once.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "crypt_gathering.hpp"
#include "server_quota.hpp"
#include "server_session.hpp"

namespace cryptoaccel::devcrypto {

// A piece of client memory: an address in the client's process.
struct ClientIov {
  std::uint64_t base = 0;
  std::size_t len = 0;
  friend bool operator==(const ClientIov&, const ClientIov&) = default;
};

// An asynchronous request (CIOCASYNCCRYPT): its errno, and what
// CIOCASYNCFETCH writes back, where, in that order (the struct as it was
// submitted, then the output, IV and digest). Done when submitted, or
// `started` on a driver that gathers: then its output is written into
// `out` in a burst later, and `session` lives until then.
struct AsyncResult {
  int error = 0;
  bool layout32 = false;  // the struct at the head of `out` is cryptodev::Layout32's
  std::vector<ClientIov> out_iov;
  std::vector<std::uint8_t> out;
  std::shared_ptr<ServerSession> session;
  std::unique_ptr<StartedCipher> started;
  bool ready() const noexcept {
    return started == nullptr || started->ready.load(std::memory_order_acquire);
  }
};

class Client {
 public:
  // `quota` must outlive the client; the server counts the open file itself.
  // `user` opened the file: what the client holds counts against that
  // user's share of the quota.
  Client(ServerQuota& quota, std::uint32_t first_id, uid_t user = 0)
      : quota_(quota), user_(user), next_id_(first_id) {}
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Adds a session and sets `id`; returns 0, or ENOSPC when this client
  // holds `limit` already, or ENOMEM when the server's quota is spent (what
  // cryptodev-linux answers when it cannot allocate a session).
  int add(std::uint32_t& id, std::shared_ptr<ServerSession> session, std::size_t limit);
  // Null when the client has no session `id`. The session stays alive while
  // the caller holds it, even if another thread frees it meanwhile.
  std::shared_ptr<ServerSession> find(std::uint32_t id) const;
  bool remove(std::uint32_t id);
  std::size_t size() const;

  // Queues an asynchronous request, done or started: 0, or EBUSY when this
  // client has kMaxAsyncRequests queued or the server may hold no more
  // output (a started one is then run to its end before it is dropped).
  int queue_result(AsyncResult result);
  // The oldest done request, for `caller` (a thread of the client): the one
  // it took in an earlier round of this fetch, else the oldest done one,
  // which is then its own until it is delivered. Started requests still
  // waiting for company are run first: the client asks for them. Null when
  // none is queued.
  const AsyncResult* claim_result(std::uint32_t caller);
  // The caller's claimed result was delivered (or failed): it is gone.
  void deliver_result(std::uint32_t caller);
  // Runs the requests still waiting for company, when none is done: the
  // client waits for them now (its poll()).
  void run_waiting();
  // What poll() says: a result to fetch, room for another request.
  bool has_results() const;
  bool has_room() const;

  // `caller` has a synchronous cipher request coming back with its data
  // (crypt_gathering.hpp); counted once however often it is marked, and
  // forgotten when the file closes.
  void mark_coming(std::uint32_t caller, CryptGathering& gathering);
  void unmark_coming(std::uint32_t caller);

  // How a request that runs in another thread's burst tells the server
  // that it is done (to wake a poll() of this file). Null in tests.
  void set_ready_hook(void (*hook)(void* context, std::uint64_t file), void* context,
                      std::uint64_t file) noexcept {
    ready_hook_ = hook;
    ready_context_ = context;
    ready_file_ = file;
  }
  void hook_up(StartedCipher& job) const noexcept {
    job.on_ready = ready_hook_;
    job.ready_context = ready_context_;
    job.ready_file = ready_file_;
  }

 public:
  uid_t user() const noexcept { return user_; }

 private:
  ServerQuota& quota_;
  const uid_t user_;
  mutable std::mutex mutex_;
  std::map<std::uint32_t, std::shared_ptr<ServerSession>> sessions_;
  std::uint32_t next_id_;
  // Runs a started request to its end: when this returns, it is ready and
  // no burst touches it again (its memory may go).
  static void finish(const AsyncResult& r) noexcept;
  // Runs the bursts of every session with started requests in results_.
  void finish_started();

  std::deque<AsyncResult> results_;               // queued, not yet claimed
  std::map<std::uint32_t, AsyncResult> claimed_;  // by the thread fetching it
  std::set<std::uint32_t> coming_;                // callers marked coming
  CryptGathering* coming_in_ = nullptr;           // where they are counted
  void (*ready_hook_)(void*, std::uint64_t) = nullptr;
  void* ready_context_ = nullptr;
  std::uint64_t ready_file_ = 0;
};

}  // namespace cryptoaccel::devcrypto
