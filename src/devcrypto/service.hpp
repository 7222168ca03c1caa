// What the devcrypto server offers: the framework it runs on, the driver it
// is pinned to (or the dispatcher's policy), and its limits. Shared by every
// client; immutable once built, so safe from every worker thread.
#pragma once

#include <cstddef>
#include <string>

#include "cryptoaccel/framework.hpp"
#include "cryptoaccel/session.hpp"

namespace cryptoaccel::devcrypto {

// The largest data a request may carry (src, or AAD + src). The kernel
// moves an ioctl's data to a CUSE server in one piece of at most 32 pages;
// this leaves room for the struct, the IV and the output beside it.
inline constexpr std::size_t kMaxData = 64 * 1024;

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

 private:
  Framework& framework_;
  ServiceOptions options_;
  std::array<bool, kAlgorithmCount> served_{};
  std::string driver_name_;
  bool hardware_ = false;
};

}  // namespace cryptoaccel::devcrypto
