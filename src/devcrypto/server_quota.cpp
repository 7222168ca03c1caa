#include "server_quota.hpp"

#include <malloc.h>

#include <algorithm>

namespace cryptoaccel::devcrypto {

std::size_t ServerQuota::bound(std::size_t Held::*what) const noexcept {
  if (what == &Held::files) return limits_.open_files;
  if (what == &Held::sessions) return limits_.sessions;
  return limits_.async_bytes;
}

bool ServerQuota::take(std::size_t Held::*what, uid_t user, std::size_t n) noexcept {
  const std::size_t limit = bound(what);
  const std::size_t share = std::max<std::size_t>(limit / std::max<std::size_t>(limits_.user_share, 1), 1);
  std::lock_guard lock(mutex_);
  std::size_t& total = all_.*what;
  if (total > limit || n > limit - total) return false;
  const auto found = by_user_.find(user);
  const std::size_t mine = found == by_user_.end() ? 0 : found->second.*what;
  if (mine > share || n > share - mine) return false;
  try {
    by_user_[user].*what += n;
  } catch (...) {
    return false;
  }
  total += n;
  return true;
}

void ServerQuota::give_back(std::size_t Held::*what, uid_t user, std::size_t n) noexcept {
  if (n == 0) return;
  std::lock_guard lock(mutex_);
  all_.*what -= n;
  const auto found = by_user_.find(user);
  if (found == by_user_.end()) return;
  found->second.*what -= n;
  const Held& held = found->second;
  if (held.files == 0 && held.sessions == 0 && held.async_bytes == 0) by_user_.erase(found);
}

std::size_t ServerQuota::files() const noexcept {
  std::lock_guard lock(mutex_);
  return all_.files;
}

std::size_t ServerQuota::sessions() const noexcept {
  std::lock_guard lock(mutex_);
  return all_.sessions;
}

void ServerQuota::return_sessions(uid_t user, std::size_t n) noexcept {
  if (n == 0) return;
  give_back(&Held::sessions, user, n);
  const std::size_t left = sessions();
  // One trim per batch: malloc_trim walks every arena, too slow to run for
  // each session a client frees, cheap once per file-full of them; and one
  // when the last session ends, whatever the batch holds.
  const std::size_t ended = ended_since_trim_.fetch_add(n) + n;
  if ((ended >= kTrimAfter || left == 0) && ended_since_trim_.exchange(0) != 0) ::malloc_trim(0);
}

}  // namespace cryptoaccel::devcrypto
