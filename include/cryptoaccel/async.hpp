// Asynchronous requests: submit one request or a batch, get a completion
// callback per request, or wait/poll. Worker threads run the requests
// through the dispatcher, handing a driver that keeps several requests in
// flight (AF_ALG) a batch at once; a request that fails on a driver is re-run
// on the next one, and a driver that keeps failing is quarantined.
//
// Every submitted request completes exactly once: its status is set, its
// callback runs (on a worker thread) and wait() counts it, whatever the
// drivers do. With a timeout, a request stuck on a driver longer than that
// is re-run on the next driver; the attempt that finishes first delivers and
// the other's result is discarded. A request no other driver can serve
// waits for the slow call; a pinned one fails (driver_failure).
// So that a late or a wrong result can never reach the caller's buffers,
// timeout and verification run drivers on private copies (taken by
// submit(): a late attempt never reads the caller's request, which may be
// freed as soon as it completes) and copy a request's output out once,
// when it completes.
//
// An AsyncSession may be used from any number of threads at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "cryptoaccel/framework.hpp"
#include "cryptoaccel/request.hpp"
#include "cryptoaccel/session.hpp"

namespace cryptoaccel {

struct AsyncOptions {
  Framework* framework = nullptr;  // null: Framework::global()
  DriverPreference driver;         // the pin (SessionOptions::driver); empty: dispatcher decides
  unsigned workers = 2;            // threads running requests (1 to 64)
  // A request running longer than this on one driver is re-run on the next
  // (0: wait as long as it takes).
  std::chrono::milliseconds timeout{0};
  // Every Nth request a driver other than soft completes is recomputed on
  // soft and compared; on a mismatch soft's result is delivered and the
  // driver counts a failure (0: never; 1: every request).
  unsigned verify_every = 0;
};

// Called once per request, on a worker thread, after its status is set.
using Completion = std::function<void(Request&)>;

struct AsyncStats {
  std::uint64_t submitted = 0;
  std::uint64_t completed = 0;
  std::uint64_t failed = 0;        // completed with a status other than ok
  std::uint64_t timeouts = 0;      // requests re-run because a driver took too long
  std::uint64_t verified = 0;      // results recomputed on soft
  std::uint64_t mismatches = 0;    // of which differed (soft's was delivered)
  std::uint64_t late_results = 0;  // results of timed-out calls, discarded
  // Worker threads held now: those serving, and those a timeout left in a
  // call that has not returned yet (each is joined once it returns).
  std::uint64_t threads = 0;
};

class AsyncSession {
 public:
  // One algorithm and key, as the synchronous sessions. Throws like them
  // (unknown algorithm, bad key length, unknown pinned driver).
  AsyncSession(std::string_view algorithm, std::span<const std::uint8_t> key,
               const AsyncOptions& options = {});
  // Waits for every submitted request, then stops the workers.
  ~AsyncSession();
  AsyncSession(const AsyncSession&) = delete;
  AsyncSession& operator=(const AsyncSession&) = delete;

  // Queues requests: ciphers (encrypt/decrypt, one-shot), AEAD (seal/open;
  // a failed open's output is wiped) or digest/MAC (Operation::digest, out
  // the digest). The requests and every buffer they point to must stay valid
  // and untouched until they complete. A request that fails the length
  // checks completes at once with its status.
  void submit(std::span<Request> batch, Completion on_complete = {});
  void submit(Request& request, Completion on_complete = {}) {
    submit(std::span<Request>(&request, 1), std::move(on_complete));
  }

  // Blocks until every request submitted so far has completed.
  void wait();
  // Waits at most `limit`; true when nothing is outstanding.
  bool wait_for(std::chrono::milliseconds limit);
  // True when nothing is outstanding (never blocks).
  bool poll() const;
  std::uint64_t outstanding() const;

  AsyncStats stats() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace cryptoaccel
