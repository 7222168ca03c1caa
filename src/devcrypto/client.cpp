#include "client.hpp"

#include <cerrno>

#include "../abi/cryptodev.hpp"

namespace cryptoaccel::devcrypto {

namespace {

std::size_t bytes_of(const AsyncResult& r) {
  return r.out.size();
}

}  // namespace

Client::~Client() {
  std::size_t queued = 0;
  for (const AsyncResult& r : results_) queued += bytes_of(r);
  for (const auto& [caller, r] : claimed_) queued += bytes_of(r);
  quota_.return_async_bytes(queued);
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

int Client::queue_result(AsyncResult result) {
  std::lock_guard lock(mutex_);
  if (results_.size() + claimed_.size() >= cryptodev::kMaxAsyncRequests) return EBUSY;
  const std::size_t bytes = bytes_of(result);
  if (!quota_.take_async_bytes(bytes)) return EBUSY;
  try {
    results_.push_back(std::move(result));
  } catch (...) {
    quota_.return_async_bytes(bytes);
    throw;
  }
  return 0;
}

const AsyncResult* Client::claim_result(std::uint32_t caller) {
  std::lock_guard lock(mutex_);
  if (const auto it = claimed_.find(caller); it != claimed_.end()) return &it->second;
  if (results_.empty()) return nullptr;
  AsyncResult& claimed = claimed_[caller];
  claimed = std::move(results_.front());
  results_.pop_front();
  return &claimed;  // map nodes stay put while other callers claim theirs
}

void Client::deliver_result(std::uint32_t caller) {
  std::lock_guard lock(mutex_);
  const auto it = claimed_.find(caller);
  if (it == claimed_.end()) return;
  quota_.return_async_bytes(bytes_of(it->second));
  claimed_.erase(it);
}

bool Client::has_results() const {
  std::lock_guard lock(mutex_);
  return !results_.empty();  // a claimed one is some thread's, mid-fetch
}

bool Client::has_room() const {
  std::lock_guard lock(mutex_);
  return results_.size() + claimed_.size() < cryptodev::kMaxAsyncRequests;
}

}  // namespace cryptoaccel::devcrypto
