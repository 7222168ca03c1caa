// One open file of the device: the sessions it created, at most
// Service::max_sessions() of them. Closing the file frees them all (keys
// are wiped as each session ends). Thread-safe: a client's threads may call
// into the server at once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "server_session.hpp"

namespace cryptoaccel::devcrypto {

class Client {
 public:
  explicit Client(std::uint32_t first_id) : next_id_(first_id) {}

  // Adds a session and returns its id; 0 when the client holds `limit` already.
  std::uint32_t add(std::shared_ptr<ServerSession> session, std::size_t limit);
  // Null when the client has no session `id`. The session stays alive while
  // the caller holds it, even if another thread frees it meanwhile.
  std::shared_ptr<ServerSession> find(std::uint32_t id) const;
  bool remove(std::uint32_t id);
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::uint32_t, std::shared_ptr<ServerSession>> sessions_;
  std::uint32_t next_id_;
};

}  // namespace cryptoaccel::devcrypto
