// One open file of the device: the sessions it created, at most
// Service::max_sessions() of them, and with every other client at most the
// server's quota. Closing the file frees them all (keys are wiped as each
// session ends) and returns them to the quota. Thread-safe: a client's
// threads may call into the server at once.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "server_quota.hpp"
#include "server_session.hpp"

namespace cryptoaccel::devcrypto {

// A piece of client memory: an address in the client's process.
struct ClientIov {
  std::uint64_t base = 0;
  std::size_t len = 0;
  friend bool operator==(const ClientIov&, const ClientIov&) = default;
};

// An asynchronous request (CIOCASYNCCRYPT) that is done: its errno, and
// what CIOCASYNCFETCH writes back, where, in that order (the struct as it
// was submitted, then the output, IV and digest).
struct AsyncResult {
  int error = 0;
  std::vector<ClientIov> out_iov;
  std::vector<std::uint8_t> out;
};

class Client {
 public:
  // `quota` must outlive the client; the server counts the open file itself.
  Client(ServerQuota& quota, std::uint32_t first_id) : quota_(quota), next_id_(first_id) {}
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

  // Queues a done asynchronous request: 0, or EBUSY when this client has
  // kMaxAsyncRequests queued or the server may hold no more output.
  int queue_result(AsyncResult result);
  // The oldest done request, for `caller` (a thread of the client): the one
  // it took in an earlier round of this fetch, else the oldest queued one,
  // which is then its own until it is delivered. Null when none is done.
  const AsyncResult* claim_result(std::uint32_t caller);
  // The caller's claimed result was delivered (or failed): it is gone.
  void deliver_result(std::uint32_t caller);
  // What poll() says: a result to fetch, room for another request.
  bool has_results() const;
  bool has_room() const;

 private:
  ServerQuota& quota_;
  mutable std::mutex mutex_;
  std::map<std::uint32_t, std::shared_ptr<ServerSession>> sessions_;
  std::uint32_t next_id_;
  std::deque<AsyncResult> results_;               // done, not yet claimed
  std::map<std::uint32_t, AsyncResult> claimed_;  // by the thread fetching it
};

}  // namespace cryptoaccel::devcrypto
