#include "client.hpp"

#include <cerrno>

namespace cryptoaccel::devcrypto {

Client::~Client() {
  // The sessions end first, so that the quota trims the heap they freed.
  const std::size_t n = sessions_.size();
  sessions_.clear();
  quota_.return_sessions(n);
}

int Client::add(std::uint32_t& id, std::shared_ptr<ServerSession> session, std::size_t limit) {
  std::lock_guard lock(mutex_);
  if (sessions_.size() >= limit) return ENOSPC;
  if (!quota_.take_session()) return ENOMEM;
  // Ids are never 0 and never reused while a session holds them.
  do {
    ++next_id_;
  } while (next_id_ == 0 || sessions_.contains(next_id_));
  try {
    sessions_.emplace(next_id_, std::move(session));
  } catch (...) {
    quota_.return_sessions(1);
    throw;
  }
  id = next_id_;
  return 0;
}

std::shared_ptr<ServerSession> Client::find(std::uint32_t id) const {
  std::lock_guard lock(mutex_);
  const auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

bool Client::remove(std::uint32_t id) {
  std::shared_ptr<ServerSession> gone;
  {
    std::lock_guard lock(mutex_);
    const auto it = sessions_.find(id);
    if (it == sessions_.end()) return false;
    gone = std::move(it->second);
    sessions_.erase(it);
  }
  gone.reset();  // the session ends outside the lock, before the quota hears of it
  quota_.return_sessions(1);
  return true;
}

std::size_t Client::size() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

}  // namespace cryptoaccel::devcrypto
