// One open file of the device: the sessions it created, at most
// Service::max_sessions() of them, and with every other client at most the
// server's quota. Closing the file frees them all (keys are wiped as each
// session ends) and returns them to the quota. Thread-safe: a client's
// threads may call into the server at once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "server_quota.hpp"
#include "server_session.hpp"

namespace cryptoaccel::devcrypto {

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

 private:
  ServerQuota& quota_;
  mutable std::mutex mutex_;
  std::map<std::uint32_t, std::shared_ptr<ServerSession>> sessions_;
  std::uint32_t next_id_;
};

}  // namespace cryptoaccel::devcrypto
