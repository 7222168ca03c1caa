// The server's stop, bounded in time. Once SIGTERM, SIGINT or SIGHUP
// arrives, the orderly stop (libfuse's workers finish what they serve, the
// deferred requests are answered, the device is closed, every session ends
// and its keys are wiped) has a grace period; what still runs then (a
// private-key operation on numbers of thousands of bits takes seconds on a
// slow CPU, and libfuse waits for its workers) does not hold the server:
// the process ends at once with status 0, and the kernel closes the device
// and takes back its memory, keys and all.
#pragma once

#include <chrono>
#include <thread>

namespace cryptoaccel::devcrypto {

class StopDeadline {
 public:
  // Installs handlers for the three signals that note the signal's arrival
  // and then call the handlers in place now (libfuse's, which end its
  // loop). One at a time in a process.
  explicit StopDeadline(std::chrono::milliseconds grace);
  // The orderly stop is done: the process is no longer ended for it. The
  // handlers stay (they only call the previous ones from then on).
  ~StopDeadline();
  StopDeadline(const StopDeadline&) = delete;
  StopDeadline& operator=(const StopDeadline&) = delete;

 private:
  void watch(std::chrono::milliseconds grace);
  std::thread watcher_;
};

}  // namespace cryptoaccel::devcrypto
