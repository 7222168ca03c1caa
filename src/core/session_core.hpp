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

  const Algorithm& algorithm() const noexcept { return algorithm_; }
  std::string_view last_driver() const noexcept {
    return last_ ? std::string_view(last_->name) : std::string_view();
  }

  // Runs one request on the first candidate driver that covers it; a driver
  // failure moves it to the next candidate (never when a driver is pinned).
  // Returns the request's final status: ok, or what the driver reported
  // (authentication_failed, invalid_length, ...). Throws Unsupported when no
  // driver can take the request, DriverFailure when every one failed.
  ErrorCode run(Request& request);

  struct Stream {
    std::unique_ptr<DigestStream> stream;
    RegisteredDriver* driver = nullptr;
  };
  // Opens a digest/MAC stream on the first candidate that streams.
  Stream open_stream();
  // Accounts a finished stream.
  void record(RegisteredDriver* driver, std::size_t bytes, bool failed) noexcept;

 private:
  struct Slot {
    std::unique_ptr<DriverSession> session;
    bool unusable = false;  // open_session failed: skip this driver
    std::uint64_t requests = 0, bytes = 0, failures = 0;
  };
  std::span<RegisteredDriver* const> candidates() const noexcept;
  DriverSession* session_for(RegisteredDriver& driver);
  void flush_usage() noexcept;
  [[noreturn]] void throw_no_driver(const Request& request) const;

  Framework::Impl& framework_;
  const Algorithm& algorithm_;
  SecureBuffer key_;
  RegisteredDriver* pinned_ = nullptr;
  std::vector<Slot> slots_;  // indexed by RegisteredDriver::index
  RegisteredDriver* last_ = nullptr;
  std::uint32_t unflushed_ = 0;
};

}  // namespace cryptoaccel::detail
