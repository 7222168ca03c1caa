#include "client.hpp"

namespace cryptoaccel::devcrypto {

std::uint32_t Client::add(std::shared_ptr<ServerSession> session, std::size_t limit) {
  std::lock_guard lock(mutex_);
  if (sessions_.size() >= limit) return 0;
  // Ids are never 0 and never reused while a session holds them.
  do {
    ++next_id_;
  } while (next_id_ == 0 || sessions_.contains(next_id_));
  sessions_.emplace(next_id_, std::move(session));
  return next_id_;
}

std::shared_ptr<ServerSession> Client::find(std::uint32_t id) const {
  std::lock_guard lock(mutex_);
  const auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

bool Client::remove(std::uint32_t id) {
  std::shared_ptr<ServerSession> gone;  // destroyed outside the lock
  std::lock_guard lock(mutex_);
  const auto it = sessions_.find(id);
  if (it == sessions_.end()) return false;
  gone = std::move(it->second);
  sessions_.erase(it);
  return true;
}

std::size_t Client::size() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

}  // namespace cryptoaccel::devcrypto
