// Synchronous CIOCCRYPT requests of many clients meeting in one burst.
// Each request is served on a worker thread of its own and its caller
// waits for the reply, so company for it can only be requests inside the
// server at the same time, or coming: past the round that read their
// struct, on their way back with their data (protocol.hpp explains the
// rounds). A request that finds others inside or coming is started on a
// driver that gathers (mb) rather than run, and waits until every request
// inside is waiting too and none is coming (no one else can add to the
// burst now) or kDeadline has passed; then it runs the burst itself. A
// request alone runs at once, on the dispatcher's first choice. Only
// requests that may be started (ServerSession::may_start) are counted.
#pragma once

#include <atomic>
#include <chrono>

namespace cryptoaccel::devcrypto {

class ServerSession;
struct StartedCipher;

class CryptGathering {
 public:
  // The longest a request waits for company: the mb driver's default
  // flush deadline (docs/drivers/mb.md).
  static constexpr std::chrono::microseconds kDeadline{20};

  // A synchronous request's time inside the server, counted.
  class Inside {
   public:
    explicit Inside(CryptGathering& g) noexcept : g_(g) { g_.inside_.fetch_add(1); }
    ~Inside() { g_.inside_.fetch_sub(1); }
    Inside(const Inside&) = delete;
    Inside& operator=(const Inside&) = delete;

   private:
    CryptGathering& g_;
  };

  // A request's struct was read; its data comes in the next round. A
  // client counts its own (Client::mark_coming), so that one whose caller
  // never comes back is forgotten when the file closes.
  void coming() noexcept { coming_.fetch_add(1); }
  void arrived(unsigned n = 1) noexcept { coming_.fetch_sub(n); }

  // Is another request inside or coming, that this one's could meet?
  bool company() const noexcept { return inside_.load() > 1 || coming_.load() != 0; }
  // Returns when `job`, started on `session` (whose mutex the caller
  // holds), has run.
  void wait(ServerSession& session, const StartedCipher& job) noexcept;

 private:
  // Sequentially consistent, as the gatherer's: a request that starts
  // waiting and one that checks whether all are waiting cannot miss each other.
  std::atomic<unsigned> inside_{0};
  std::atomic<unsigned> waiting_{0};
  std::atomic<unsigned> coming_{0};
};

}  // namespace cryptoaccel::devcrypto
