#include "server_quota.hpp"

#include <malloc.h>

namespace cryptoaccel::devcrypto {

bool ServerQuota::take(std::atomic<std::size_t>& count, std::size_t limit, std::size_t n) noexcept {
  std::size_t now = count.load();
  do {
    if (now > limit || n > limit - now) return false;
  } while (!count.compare_exchange_weak(now, now + n));
  return true;
}

void ServerQuota::return_sessions(std::size_t n) noexcept {
  if (n == 0) return;
  const std::size_t left = sessions_.fetch_sub(n) - n;
  // One trim per batch: malloc_trim walks every arena, too slow to run for
  // each session a client frees, cheap once per file-full of them; and one
  // when the last session ends, whatever the batch holds.
  const std::size_t ended = ended_since_trim_.fetch_add(n) + n;
  if ((ended >= kTrimAfter || left == 0) && ended_since_trim_.exchange(0) != 0) ::malloc_trim(0);
}

}  // namespace cryptoaccel::devcrypto
