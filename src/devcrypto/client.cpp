#include "client.hpp"

#include <algorithm>
#include <cerrno>
#include <thread>

#include "../abi/cryptodev.hpp"

namespace cryptoaccel::devcrypto {

namespace {

std::size_t bytes_of(const AsyncResult& r) {
  return r.out.size();
}

}  // namespace

Client::~Client() {
  for (const AsyncResult& r : results_) finish(r);  // their bursts write into them
  if (coming_in_ != nullptr && !coming_.empty())
    coming_in_->arrived(static_cast<unsigned>(coming_.size()));  // they never will
  std::size_t queued = 0;
  for (const AsyncResult& r : results_) queued += bytes_of(r);
  for (const auto& [caller, r] : claimed_) queued += bytes_of(r);
  quota_.return_async_bytes(user_, queued);
  // The sessions end first, so that the quota trims the heap they freed.
  const std::size_t n = sessions_.size();
  sessions_.clear();
  quota_.return_sessions(user_, n);
}

int Client::add(std::uint32_t& id, std::shared_ptr<ServerSession> session, std::size_t limit) {
  std::lock_guard lock(mutex_);
  if (sessions_.size() >= limit) return ENOSPC;
  if (!quota_.take_session(user_)) return ENOMEM;
  // Ids are never 0 and never reused while a session holds them.
  do {
    ++next_id_;
  } while (next_id_ == 0 || sessions_.contains(next_id_));
  try {
    sessions_.emplace(next_id_, std::move(session));
  } catch (...) {
    quota_.return_sessions(user_, 1);
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
  quota_.return_sessions(user_, 1);
  return true;
}

std::size_t Client::size() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

void Client::finish(const AsyncResult& r) noexcept {
  while (!r.ready()) {
    {
      std::lock_guard lock(r.session->mutex());
      r.session->finish_started();
    }
    // Its burst may be between the session's count and the request's flag.
    if (!r.ready()) std::this_thread::yield();
  }
}

int Client::queue_result(AsyncResult result) {
  int error = 0;
  {
    std::lock_guard lock(mutex_);
    const std::size_t bytes = bytes_of(result);
    if (results_.size() + claimed_.size() >= cryptodev::kMaxAsyncRequests) {
      error = EBUSY;
    } else if (!quota_.take_async_bytes(user_, bytes)) {
      error = EBUSY;
    } else {
      try {
        results_.push_back(std::move(result));
      } catch (...) {
        quota_.return_async_bytes(user_, bytes);
        error = ENOMEM;
      }
    }
  }
  if (error != 0) finish(result);  // outside our lock, as every burst runs; then dropped
  return error;
}

void Client::mark_coming(std::uint32_t caller, CryptGathering& gathering) {
  std::lock_guard lock(mutex_);
  coming_in_ = &gathering;
  if (coming_.insert(caller).second) gathering.coming();
}

void Client::unmark_coming(std::uint32_t caller) {
  std::lock_guard lock(mutex_);
  if (coming_.erase(caller) != 0) coming_in_->arrived();
}

void Client::finish_started() {
  std::vector<std::shared_ptr<ServerSession>> waiting;
  {
    std::lock_guard lock(mutex_);
    for (const AsyncResult& r : results_)
      if (!r.ready()) waiting.push_back(r.session);
  }
  for (const auto& session : waiting) {
    std::lock_guard lock(session->mutex());
    session->finish_started();
  }
}

void Client::run_waiting() {
  {
    std::lock_guard lock(mutex_);
    const bool any_done = std::any_of(results_.begin(), results_.end(),
                                      [](const AsyncResult& r) { return r.ready(); });
    if (any_done) return;
  }
  finish_started();
}

const AsyncResult* Client::claim_result(std::uint32_t caller) {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (const auto it = claimed_.find(caller); it != claimed_.end()) return &it->second;
      const auto done = std::find_if(results_.begin(), results_.end(),
                                     [](const AsyncResult& r) { return r.ready(); });
      if (done != results_.end()) {
        AsyncResult& claimed = claimed_[caller];
        claimed = std::move(*done);
        results_.erase(done);
        if (claimed.started != nullptr) claimed.error = claimed.started->error();
        return &claimed;  // map nodes stay put while other callers claim theirs
      }
      if (results_.empty()) return nullptr;
    }
    finish_started();  // only started ones are queued: the client waits for them
    std::this_thread::yield();
  }
}

void Client::deliver_result(std::uint32_t caller) {
  std::lock_guard lock(mutex_);
  const auto it = claimed_.find(caller);
  if (it == claimed_.end()) return;
  quota_.return_async_bytes(user_, bytes_of(it->second));
  claimed_.erase(it);
}

bool Client::has_results() const {
  std::lock_guard lock(mutex_);
  // A claimed one is some thread's, mid-fetch.
  return std::any_of(results_.begin(), results_.end(),
                     [](const AsyncResult& r) { return r.ready(); });
}

bool Client::has_room() const {
  std::lock_guard lock(mutex_);
  return results_.size() + claimed_.size() < cryptodev::kMaxAsyncRequests;
}

}  // namespace cryptoaccel::devcrypto
