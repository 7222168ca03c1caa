// What every session shares: the key, the driver sessions opened on demand,
// and the routing of each request through the dispatcher with fallback.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "cryptoaccel/session.hpp"
#include "framework_impl.hpp"

namespace cryptoaccel::detail {

// Does the output overlap the input? A failed in-place request may have
// lost its input, so it is never re-run elsewhere.
inline bool overlaps(const Request& r) noexcept {
  return !r.in.empty() && !r.out.empty() && r.out.data() < r.in.data() + r.in.size() &&
         r.in.data() < r.out.data() + r.out.size();
}

struct BatchSummary;  // request_check.hpp

class SessionCore {
 public:
  SessionCore(const Algorithm& algorithm, Bytes key, const SessionOptions& options);
  ~SessionCore();
  SessionCore(const SessionCore&) = delete;
  SessionCore& operator=(const SessionCore&) = delete;

  // A fresh core with the same framework, algorithm, key and pin; no driver
  // sessions are shared (each core serves its own thread).
  std::unique_ptr<SessionCore> clone() const;

  // The driver of the preference that serves every request; null when the
  // dispatcher chooses.
  RegisteredDriver* pinned() const noexcept { return pinned_; }

  std::string_view last_driver() const noexcept {
    return last_ ? std::string_view(last_->name) : std::string_view();
  }

  // Runs one request on the first candidate driver that covers it; a driver
  // failure moves it to the next candidate (never when a driver is pinned).
  // Returns the request's final status: ok, or what the driver reported
  // (authentication_failed, invalid_length, ...). Throws Unsupported when no
  // driver can take the request, DriverFailure when every one failed.
  [[gnu::always_inline]] ErrorCode run(Request& request) {
    // The hot path: the dispatcher's first choice served the previous
    // request, and this one has a size in the route's range and the same
    // IV and tag lengths, and the driver's length multiple, so the driver
    // covers it too.
    if (route_.session != nullptr && request.in.size() - route_.low <= route_.width &&
        (request.in.size() & route_.input_mask) == 0 && request.iv.size() == route_.iv_size &&
        request.tag.size() == route_.tag_size) [[likely]] {
      if (route_.hardware) [[unlikely]]
        return run_on_hardware(request);
      request.continues = request.continues && route_.session == last_session_;
      request.status = ErrorCode::ok;
      route_.session->process_one(request);
      if (request.status != ErrorCode::driver_failure) [[likely]] {
        last_session_ = route_.session;
        count(*route_.slot, route_.driver, request.in.size());
        return request.status;
      }
      return run_after_failure(request);
    }
    return run_routed(request);
  }

  // Runs a batch for the asynchronous API: consecutive requests that the
  // dispatcher sends to the same driver go to it together (requests in
  // flight, up to its max_in_flight); a request that fails there is re-run
  // alone on the next candidate. `avoid` (may be null) is never used: it
  // timed out on these requests. `watch` (may be null) holds the driver at
  // work and since when, for a watchdog. Every request ends with its status; nothing throws.
  // `served` (null, or one entry per request) receives the driver that
  // completed each request (null when none did).
  struct Watch {
    std::atomic<RegisteredDriver*> driver{nullptr};
    std::atomic<std::int64_t> since{0};  // steady_clock ticks; 0: idle
  };
  // Session::start and Session::flush: the first candidate that gathers
  // and takes every request of `batch` queues it.
  bool start_batch(std::span<Request> batch, AsyncTicket& ticket) noexcept;
  void flush_started() noexcept;

  // Every request arrives with `continues` false and status ok (the batch
  // API's checks set them; drivers write only failures). `checked`, when
  // given, summarises exactly these requests (check_batch). Returns how
  // many requests completed ok.
  std::size_t run_batch(std::span<Request> batch, const RegisteredDriver* avoid, Watch* watch,
                        RegisteredDriver** served, const BatchSummary* checked = nullptr) noexcept;

  struct Stream {
    std::unique_ptr<DigestStream> stream;
    RegisteredDriver* driver = nullptr;
  };
  // Opens a digest/MAC stream on the first candidate that streams.
  // `follow_pin` false: on the dispatcher's drivers (what a preference
  // whose driver cannot stream falls back to).
  Stream open_stream(bool follow_pin = true);
  // Accounts a finished stream.
  void record(RegisteredDriver* driver, std::size_t bytes, bool failed) noexcept;

 private:
  SessionCore(const SessionCore& other, Bytes key);
  struct Slot {
    std::unique_ptr<DriverSession> session;
    bool unusable = false;  // open_session failed: skip this driver
    std::uint64_t requests = 0, bytes = 0, failures = 0;
  };
  // run_batch's steps: the driver the dispatcher would try first for
  // `request` (with its session), a run of requests sent to it at once
  // (returns how many it completed), and one request re-run alone through
  // the failover path (returns who served it, or null).
  RegisteredDriver* first_choice(const Request& request, const RegisteredDriver* avoid,
                                 DriverSession*& session) noexcept;
  std::size_t send_together(RegisteredDriver& driver, DriverSession& session,
                            std::span<Request> run, Watch* watch, bool uniform = false) noexcept;
  RegisteredDriver* run_alone(Request& request, const RegisteredDriver* avoid) noexcept;
  // A driver that gathers, where the batch from `i` on is deep enough for it
  // to beat `first` (Dispatcher::gather), with `depth` the requests from `i`
  // it takes; else `first`, with `depth` 0.
  RegisteredDriver* deeper_choice(std::span<Request> batch, std::size_t i, RegisteredDriver* first,
                                  const RegisteredDriver* avoid, DriverSession*& session,
                                  std::size_t& depth) noexcept;
  // In order of preference, the drivers in quarantine last.
  // `follow_pin` false: the dispatcher's, as if the session had no pin.
  void candidates(std::size_t size, std::vector<RegisteredDriver*>& out,
                  bool follow_pin = true) const;
  // Runs one request on `driver` and accounts for it: the driver's health,
  // this session's counters, the session that served last. Whether the
  // driver served it (any status but driver_failure), failed, or declined
  // it (`unsupported` from a driver that takes only some requests).
  enum class Attempt : std::uint8_t { served, failed, declined };
  Attempt attempt(RegisteredDriver& driver, DriverSession& session, Request& request);
  // Walks the dispatcher's candidates from the first; caches the route.
  // With a preference that falls back, a request the pinned driver does not
  // cover walks them again with `follow_pin` false.
  ErrorCode run_routed(Request& request, const RegisteredDriver* avoid = nullptr,
                       bool follow_pin = true);
  void cache_route(RegisteredDriver& driver, DriverSession& session, const Capability& capability,
                   const Request& request);
  // The cached route failed: account for it, then reroute.
  ErrorCode run_after_failure(Request& request);
  // Forgets the route and runs the request on the next candidate (unless
  // pinned, or its input may be lost).
  ErrorCode reroute_after_failure(Request& request);
  // The cached route leads to hardware: counts the request as the device's
  // work, or sends it to the route's overflow when the device is busy enough.
  ErrorCode run_on_hardware(Request& request);
  // Sets the route's overflow, where the dispatcher has one for this size.
  void add_overflow(const Request& request);
  bool overflows_to_software(RegisteredDriver& device) const noexcept;
  // How long a device counts as shared after a request found another in it.
  static constexpr std::chrono::milliseconds kSharedWindow{50};
  void count(RegisteredDriver* driver, std::size_t bytes) noexcept {
    count(slots_[driver->index], driver, bytes);
  }
  // A batch's run: `requests` served, `bytes` in all.
  void count(RegisteredDriver* driver, std::size_t requests, std::uint64_t bytes) noexcept {
    Slot& slot = slots_[driver->index];
    slot.requests += requests;
    slot.bytes += bytes;
    last_ = driver;
    unflushed_ += static_cast<std::uint32_t>(requests);
    if (unflushed_ >= kFlushEvery) [[unlikely]]
      flush_usage();
  }
  void count(Slot& slot, RegisteredDriver* driver, std::size_t bytes) noexcept {
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
  // `on_pin`: the walk was the pinned driver's, which the message names.
  [[noreturn]] void throw_no_driver(const Request& request, bool on_pin) const;
  [[noreturn]] void throw_failure(bool on_pin) const;
  // A strict pin (SessionOptions::driver without fall_back): this driver's
  // refusals and errors are the caller's. A preference's driver, and every
  // driver of the dispatcher's walk, decline what they cannot do instead,
  // and the walk moves on.
  bool holds_to(const RegisteredDriver& driver) const noexcept {
    return &driver == pinned_ && !falls_back_;
  }

  Framework::Impl& framework_;
  const Algorithm& algorithm_;
  SecretBytes key_;
  RegisteredDriver* pinned_ = nullptr;
  bool falls_back_ = false;  // SessionOptions::fall_back: the pin is a preference
  std::vector<Slot> slots_;  // indexed by RegisteredDriver::index
  RegisteredDriver* last_ = nullptr;
  DriverSession* last_session_ = nullptr;  // served the previous request
  std::uint32_t unflushed_ = 0;
  DriverSession* started_on_ = nullptr;  // where start_batch last queued requests
  // The route of the previous request. The dispatcher's first choice is the
  // same for every size in [low, low + width] (the whole range without a
  // profile; never above what the driver takes), so a request there with
  // the IV and tag lengths the driver covered skips the candidate walk.
  struct Route {
    RegisteredDriver* driver = nullptr;
    DriverSession* session = nullptr;
    Slot* slot = nullptr;  // slots_[driver->index], which never moves
    std::size_t low = 0, width = 0;
    std::size_t input_mask = 0;  // the driver's input_multiple - 1
    std::size_t iv_size = 0, tag_size = 0;
    bool hardware = false;  // count the requests in driver->load.in_flight
    // Where the dispatcher offers one: the software that takes a request
    // when the device already holds `overflow_at` (Dispatcher::overflow()).
    RegisteredDriver* overflow = nullptr;
    DriverSession* overflow_session = nullptr;
    std::uint32_t overflow_at = 0;
    bool overflow_while_shared = false;
  } route_;
  std::vector<RegisteredDriver*> candidates_;  // scratch for run_routed
};

}  // namespace cryptoaccel::detail
