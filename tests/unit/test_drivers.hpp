// Drivers for tests of the framework itself: a real AES-128-CBC over EVP that
// can be told to fail, or to answer wrongly from the start.
#pragma once

#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "cryptoaccel/driver/driver.hpp"

namespace cryptoaccel::test {

enum class Behaviour { correct, fail_requests, wrong_answers };

struct DriverControl {
  std::atomic<Behaviour> behaviour{Behaviour::correct};
  std::atomic<int> processed{0};
};

// The real AES-128-CBC of one request, through EVP; false on failure.
inline bool aes_128_cbc(const std::vector<std::uint8_t>& key, Request& r) {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  int len = 0;
  const bool ok =
      ctx &&
      EVP_CipherInit_ex2(ctx, EVP_aes_128_cbc(), key.data(), r.iv.data(),
                         r.op == Operation::encrypt ? 1 : 0, nullptr) == 1 &&
      EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 &&
      EVP_CipherUpdate(ctx, r.out.data(), &len, r.in.data(), static_cast<int>(r.in.size())) == 1;
  EVP_CIPHER_CTX_free(ctx);
  return ok;
}

class TestCbcSession final : public DriverSession {
 public:
  TestCbcSession(std::vector<std::uint8_t> key, DriverControl& control)
      : key_(std::move(key)), control_(control) {}

  std::size_t process(std::span<Request> batch) noexcept override {
    for (Request& r : batch) {
      ++control_.processed;
      const Behaviour b = control_.behaviour.load();
      if (b == Behaviour::fail_requests) {
        // Scribble on the output first, as a device that died mid-way would.
        for (auto& byte : r.out) byte ^= 0x5a;
        r.status = ErrorCode::driver_failure;
        continue;
      }
      const bool ok = aes_128_cbc(key_, r);
      r.status = ok ? ErrorCode::ok : ErrorCode::driver_failure;
      if (ok && b == Behaviour::wrong_answers && !r.out.empty()) r.out[0] ^= 1;
    }
    return batch.size();
  }

 private:
  std::vector<std::uint8_t> key_;
  DriverControl& control_;
};

class TestCbcDriver final : public Driver {
 public:
  // `gathers`: says it runs requests together (as mb does), 32 at most.
  TestCbcDriver(std::string name, DriverKind kind, DriverControl& control, bool gathers = false)
      : name_(std::move(name)), kind_(kind), control_(control), gathers_(gathers) {}
  std::string_view name() const noexcept override { return name_; }
  std::string description() const override { return "test driver"; }
  DriverTraits traits() const noexcept override {
    return {.kind = kind_,
            .priority = 300,
            .automatic = true,
            .self_test = true,
            .max_in_flight = gathers_ ? 32u : 1u,
            .gathers = gathers_};
  }
  std::span<const Capability> capabilities() const noexcept override { return capabilities_; }
  // Takes only these operations (operation_bit()s), as some devices do.
  void take_only(std::uint8_t operations) { capabilities_[0].operations = operations; }
  // Refuses this key when a session is opened, as soft refuses a key kept
  // in the kernel keyring (the self-test's keys still work).
  void refuse_key(std::vector<std::uint8_t> key) { refused_key_ = std::move(key); }
  std::unique_ptr<DriverSession> open_session(const Algorithm&,
                                              std::span<const std::uint8_t> key) override {
    if (!refused_key_.empty() &&
        std::equal(key.begin(), key.end(), refused_key_.begin(), refused_key_.end()))
      throw InvalidKey(name_ + ": not a key this driver takes");
    return std::make_unique<TestCbcSession>(std::vector<std::uint8_t>(key.begin(), key.end()),
                                            control_);
  }

 private:
  std::string name_;
  DriverKind kind_;
  DriverControl& control_;
  bool gathers_;
  std::vector<std::uint8_t> refused_key_;
  std::vector<Capability> capabilities_{{.algorithm = AlgorithmId::aes_128_cbc,
                                         .key_sizes = {16, 16},
                                         .iv_sizes = {16, 16},
                                         .tag_sizes = {0, 0},
                                         .max_request = 4096}};
};

}  // namespace cryptoaccel::test
