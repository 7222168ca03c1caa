// What the devcrypto server offers: the framework it runs on, the driver it
// is pinned to (or the dispatcher's policy), and its limits. Shared by every
// client; immutable once built, so safe from every worker thread.
#pragma once

#include <cstddef>
#include <string>

#include "crypt_gathering.hpp"
#include "cryptoaccel/framework.hpp"
#include "cryptoaccel/session.hpp"

namespace cryptoaccel::devcrypto {

// What one round of a CUSE ioctl moves each way: the kernel refuses retry
// pieces over 32 pages in all (fuse_verify_ioctl_iov against fc->max_pages,
// which CUSE leaves at FUSE_DEFAULT_MAX_PAGES_PER_REQ). Larger requests are
// served through the caller's memory (client_memory.hpp).
inline constexpr std::size_t kMaxRoundBytes = 32 * 4096;

// The largest data a request may carry (src, or AAD + src). cryptodev-linux
// has no bound; this one keeps what a request holds in the server (its
// input and output, on each of at most --threads workers) to a few MiB.
inline constexpr std::size_t kMaxData = 1024 * 1024;

struct ServiceOptions {
  std::string driver;             // pin every session to this driver; empty: dispatch
  std::size_t max_sessions = 64;  // per open file of the device
};

class Service {
 public:
  // Throws NotFound when `options.driver` names no driver of `framework`.
  Service(Framework& framework, ServiceOptions options);

  // Does some enabled driver (the pinned one, if any) serve `id`?
  bool serves(AlgorithmId id) const noexcept { return served_[index_of(id)]; }
  // The implementation CIOCGSESSINFO reports: "cryptoaccel:soft",
  // "cryptoaccel:dispatch(fastest)". The prefix tells a cryptodev driver that
  // the device is ours.
  const std::string& driver_name() const noexcept { return driver_name_; }
  bool hardware() const noexcept { return hardware_; }
  std::size_t max_sessions() const noexcept { return options_.max_sessions; }
  SessionOptions session_options() const {
    return {.framework = &framework_, .driver = options_.driver};
  }
  // The one part that changes: counts of the requests inside, atomic.
  CryptGathering& gathering() const noexcept { return gathering_; }

 private:
  Framework& framework_;
  ServiceOptions options_;
  std::array<bool, kAlgorithmCount> served_{};
  std::string driver_name_;
  bool hardware_ = false;
  mutable CryptGathering gathering_;
};

}  // namespace cryptoaccel::devcrypto
