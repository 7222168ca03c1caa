// What the whole server may hold at once: open files of the device,
// sessions over all of them, and output of asynchronous requests not yet
// fetched. The per-file bound alone let an unprivileged user grow the
// root-owned server without limit by opening more files (2,560 sessions,
// 11 -> 21 MB). And no user may hold more than a share of each bound
// (`user_share`), so that one who takes what they may still leaves the
// others room: without it, one user's 4,096 open files or sessions left
// every other user ENOMEM. Thread-safe.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <map>
#include <mutex>

namespace cryptoaccel::devcrypto {

struct QuotaLimits {
  std::size_t open_files = 4096;  // open files of the device
  std::size_t sessions = 4096;    // sessions over every open file
  // Output of asynchronous requests done and not fetched yet, over every
  // open file (each file also holds at most 64 such requests).
  std::size_t async_bytes = 64u << 20;
  // One user holds at most 1/user_share of each bound above (1: no bound
  // per user).
  std::size_t user_share = 4;
};

class ServerQuota {
 public:
  explicit ServerQuota(QuotaLimits limits) : limits_(limits) {}
  ServerQuota(const ServerQuota&) = delete;
  ServerQuota& operator=(const ServerQuota&) = delete;

  // Each take_* returns false, taking nothing, when the server's bound or
  // the user's share of it is reached.
  bool take_file(uid_t user) noexcept { return take(&Held::files, user, 1); }
  void return_file(uid_t user) noexcept { give_back(&Held::files, user, 1); }
  bool take_session(uid_t user) noexcept { return take(&Held::sessions, user, 1); }
  // Called once the sessions' memory is freed: after many, or when none is
  // left, hands the free heap back to the system, which malloc keeps
  // otherwise (RSS stayed at 21 MB after every file was closed).
  void return_sessions(uid_t user, std::size_t n) noexcept;
  bool take_async_bytes(uid_t user, std::size_t n) noexcept {
    return take(&Held::async_bytes, user, n);
  }
  void return_async_bytes(uid_t user, std::size_t n) noexcept {
    give_back(&Held::async_bytes, user, n);
  }

  std::size_t files() const noexcept;
  std::size_t sessions() const noexcept;
  const QuotaLimits& limits() const noexcept { return limits_; }

  // Sessions ended between two trims of the heap.
  static constexpr std::size_t kTrimAfter = 64;

 private:
  struct Held {
    std::size_t files = 0, sessions = 0, async_bytes = 0;
  };
  bool take(std::size_t Held::*what, uid_t user, std::size_t n) noexcept;
  void give_back(std::size_t Held::*what, uid_t user, std::size_t n) noexcept;
  std::size_t bound(std::size_t Held::*what) const noexcept;

  const QuotaLimits limits_;
  mutable std::mutex mutex_;
  Held all_;
  std::map<uid_t, Held> by_user_;
  std::atomic<std::size_t> ended_since_trim_{0};
};

}  // namespace cryptoaccel::devcrypto
