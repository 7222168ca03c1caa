// What the whole server may hold at once, whoever asks: open files of the
// device and sessions over all of them. The per-file bound alone let an
// unprivileged user grow the root-owned server without limit by opening
// more files (issue 15: 2,560 sessions, 11 -> 21 MB). Thread-safe.
#pragma once

#include <atomic>
#include <cstddef>

namespace cryptoaccel::devcrypto {

struct QuotaLimits {
  std::size_t open_files = 4096;  // open files of the device
  std::size_t sessions = 4096;    // sessions over every open file
  // Output of asynchronous requests done and not fetched yet, over every
  // open file (each file also holds at most 64 such requests).
  std::size_t async_bytes = 64u << 20;
};

class ServerQuota {
 public:
  explicit ServerQuota(QuotaLimits limits) : limits_(limits) {}
  ServerQuota(const ServerQuota&) = delete;
  ServerQuota& operator=(const ServerQuota&) = delete;

  // Each take_* returns false, taking nothing, when the limit is reached.
  bool take_file() noexcept { return take(files_, limits_.open_files); }
  void return_file() noexcept { files_.fetch_sub(1); }
  bool take_session() noexcept { return take(sessions_, limits_.sessions); }
  // Called once the sessions' memory is freed: after many, or when none is
  // left, hands the free heap back to the system, which malloc keeps
  // otherwise (the RSS stayed at 21 MB after every file was closed).
  void return_sessions(std::size_t n) noexcept;
  bool take_async_bytes(std::size_t n) noexcept {
    return take(async_bytes_, limits_.async_bytes, n);
  }
  void return_async_bytes(std::size_t n) noexcept { async_bytes_.fetch_sub(n); }

  std::size_t files() const noexcept { return files_.load(); }
  std::size_t sessions() const noexcept { return sessions_.load(); }
  const QuotaLimits& limits() const noexcept { return limits_; }

  // Sessions ended between two trims of the heap.
  static constexpr std::size_t kTrimAfter = 64;

 private:
  static bool take(std::atomic<std::size_t>& count, std::size_t limit, std::size_t n = 1) noexcept;

  const QuotaLimits limits_;
  std::atomic<std::size_t> files_{0};
  std::atomic<std::size_t> sessions_{0};
  std::atomic<std::size_t> ended_since_trim_{0};
  std::atomic<std::size_t> async_bytes_{0};
};

}  // namespace cryptoaccel::devcrypto
