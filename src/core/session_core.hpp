// What every session shares: the key, the driver sessions opened on demand,
// and the routing of each request through the dispatcher with fallback.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cryptoaccel/session.hpp"
#include "framework_impl.hpp"
#include "secure_buffer.hpp"

namespace cryptoaccel::detail {

class SessionCore {
 public:
  SessionCore(const Algorithm& algorithm, Bytes key, const SessionOptions& options);
  ~SessionCore();
  SessionCore(const SessionCore&) = delete;
  SessionCore& operator=(const SessionCore&) = delete;

  // A fresh core with the same framework, algorithm, key and pin; no driver
  // sessions are shared (each core serves its own thread).
  std::unique_ptr<SessionCore> clone() const;

  std::string_view last_driver() const noexcept {
    return last_ ? std::string_view(last_->name) : std::string_view();
  }

  // Runs one request on the first candidate driver that covers it; a driver
  // failure moves it to the next candidate (never when a driver is pinned).
  // Returns the request's final status: ok, or what the driver reported
  // (authentication_failed, invalid_length, ...). Throws Unsupported when no
  // driver can take the request, DriverFailure when every one failed.
  ErrorCode run(Request& request) {
    ++generation_;
    // The hot path: the dispatcher's first choice served the previous
    // request and covers this one.
    if (route_.session != nullptr && covers(*route_.capability, request)) [[likely]] {
      request.continues = request.continues && route_.session == last_session_;
      request.status = ErrorCode::ok;
      if (route_.session->process({&request, 1}) == 1 &&
          request.status != ErrorCode::driver_failure) [[likely]] {
        last_session_ = route_.session;
        count(route_.driver, request.in.size());
        return request.status;
      }
      return run_after_failure(request);
    }
    return run_routed(request);
  }

  // Counts requests run; a stream compares it to tell whether anything ran
  // on this session since its own previous request.
  std::uint64_t generation() const noexcept { return generation_; }

  struct Stream {
    std::unique_ptr<DigestStream> stream;
    RegisteredDriver* driver = nullptr;
  };
  // Opens a digest/MAC stream on the first candidate that streams.
  Stream open_stream();
  // Accounts a finished stream.
  void record(RegisteredDriver* driver, std::size_t bytes, bool failed) noexcept;

 private:
  SessionCore(const SessionCore& other, Bytes key);
  struct Slot {
    std::unique_ptr<DriverSession> session;
    bool unusable = false;  // open_session failed: skip this driver
    std::uint64_t requests = 0, bytes = 0, failures = 0;
  };
  std::span<RegisteredDriver* const> candidates() const noexcept;
  ErrorCode run_routed(Request& request);
  ErrorCode run_after_failure(Request& request);
  void count(RegisteredDriver* driver, std::size_t bytes) noexcept {
    Slot& slot = driver == route_.driver ? *route_.slot : slots_[driver->index];
    ++slot.requests;
    slot.bytes += bytes;
    last_ = driver;
    if (++unflushed_ >= kFlushEvery) [[unlikely]]
      flush_usage();
  }
  // Counters are kept per session and published in bulk: an atomic add per
  // request would cost more than a small request itself.
  static constexpr std::uint32_t kFlushEvery = 1024;
  DriverSession* session_for(RegisteredDriver& driver);
  void flush_usage() noexcept;
  [[noreturn]] void throw_no_driver(const Request& request) const;
  [[noreturn]] void throw_failure() const;

  Framework::Impl& framework_;
  const Algorithm& algorithm_;
  SecureBuffer key_;
  RegisteredDriver* pinned_ = nullptr;
  std::vector<Slot> slots_;  // indexed by RegisteredDriver::index
  RegisteredDriver* last_ = nullptr;
  DriverSession* last_session_ = nullptr;  // served the previous request
  std::uint64_t generation_ = 0;
  std::uint32_t unflushed_ = 0;
  // The route of the previous request. Until dispatch depends on size, the
  // same driver serves every request it covers, so the next one skips the
  // candidate walk.
  struct Route {
    RegisteredDriver* driver = nullptr;
    DriverSession* session = nullptr;
    const Capability* capability = nullptr;
    Slot* slot = nullptr;  // slots_[driver->index], which never moves
  } route_;
};

}  // namespace cryptoaccel::detail
