// A driver for fault injection: a real AES-128-CBC (over EVP) that fails
// every Nth request, answers wrongly every Mth, declines every Kth, hangs
// on one request until released, or takes a while over every call.
// Thread-safe: the asynchronous tests run it on several workers.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cryptoaccel/driver/driver.hpp"
#include "test_drivers.hpp"

namespace cryptoaccel::test {

struct Faults {
  std::atomic<unsigned> fail_every{0};     // 0: never
  std::atomic<unsigned> wrong_every{0};    // 0: never
  std::atomic<unsigned> decline_every{0};  // answers `unsupported`, untouched; 0: never
  std::atomic<long> hang_at{-1};           // request number that hangs until release(); -1: none
  std::atomic<unsigned> delay_us{0};       // every call takes at least this long: a slow device
  std::atomic<long> processed{0};          // requests seen (self-test included)
  std::atomic<long> hung{0};               // requests that hung

  void release() {
    std::lock_guard lock(mutex);
    released = true;
    wake.notify_all();
  }
  void hang() {
    ++hung;
    std::unique_lock lock(mutex);
    wake.wait(lock, [&] { return released; });
  }

 private:
  std::mutex mutex;
  std::condition_variable wake;
  bool released = false;
};

class FaultySession final : public DriverSession {
 public:
  FaultySession(std::vector<std::uint8_t> key, Faults& faults)
      : key_(std::move(key)), faults_(faults) {}

  std::size_t process(std::span<Request> batch) noexcept override {
    if (const unsigned delay = faults_.delay_us.load(); delay != 0)
      std::this_thread::sleep_for(std::chrono::microseconds(delay));
    for (Request& r : batch) {
      const long n = faults_.processed.fetch_add(1) + 1;
      if (n == faults_.hang_at.load()) faults_.hang();
      const unsigned fail = faults_.fail_every.load(), wrong = faults_.wrong_every.load();
      if (const unsigned decline = faults_.decline_every.load(); decline != 0 && n % decline == 0) {
        r.status = ErrorCode::unsupported;  // a length its device turned down after all
        continue;
      }
      if (fail != 0 && n % fail == 0) {
        for (auto& byte : r.out) byte ^= 0x5a;  // a device that died mid-way
        r.status = ErrorCode::driver_failure;
        continue;
      }
      const bool ok = aes_128_cbc(key_, r);
      r.status = ok ? ErrorCode::ok : ErrorCode::driver_failure;
      if (ok && wrong != 0 && n % wrong == 0 && !r.out.empty()) r.out[0] ^= 1;
    }
    return batch.size();
  }

 private:
  std::vector<std::uint8_t> key_;
  Faults& faults_;
};

class FaultyDriver final : public Driver {
 public:
  FaultyDriver(std::string name, Faults& faults, std::size_t max_in_flight = 4)
      : name_(std::move(name)), faults_(faults), max_in_flight_(max_in_flight) {}
  std::string_view name() const noexcept override { return name_; }
  std::string description() const override { return "fault-injection test driver"; }
  DriverTraits traits() const noexcept override {
    return {.kind = DriverKind::hardware,
            .priority = 300,
            .automatic = true,
            .self_test = true,
            .max_in_flight = max_in_flight_};
  }
  std::span<const Capability> capabilities() const noexcept override { return {&kCapability, 1}; }
  std::unique_ptr<DriverSession> open_session(const Algorithm&,
                                              std::span<const std::uint8_t> key) override {
    return std::make_unique<FaultySession>(std::vector<std::uint8_t>(key.begin(), key.end()),
                                           faults_);
  }

 private:
  std::string name_;
  Faults& faults_;
  std::size_t max_in_flight_;
  static constexpr Capability kCapability{.algorithm = AlgorithmId::aes_128_cbc,
                                          .key_sizes = {16, 16},
                                          .iv_sizes = {16, 16},
                                          .tag_sizes = {0, 0},
                                          .max_request = 1 << 20};
};

}  // namespace cryptoaccel::test
