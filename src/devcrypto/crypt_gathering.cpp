#include "crypt_gathering.hpp"

#include <thread>

#include "server_session.hpp"

namespace cryptoaccel::devcrypto {

void CryptGathering::wait(ServerSession& session, const StartedCipher& job) noexcept {
  using Clock = std::chrono::steady_clock;
  const auto due = Clock::now() + kDeadline;
  waiting_.fetch_add(1);
  while (!job.ready.load(std::memory_order_acquire)) {
    const bool none_to_come = waiting_.load() >= inside_.load() && coming_.load() == 0;
    if (none_to_come || Clock::now() >= due) {
      session.flush_started();  // ours, with whatever met it; or ours is in another's burst
      if (job.ready.load(std::memory_order_acquire)) break;
    }
    std::this_thread::yield();
  }
  waiting_.fetch_sub(1);
}

}  // namespace cryptoaccel::devcrypto
