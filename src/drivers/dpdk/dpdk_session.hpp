// A session of the dpdk driver (dpdk_session.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backend_abi.h"
#include "cryptoaccel/driver/driver.hpp"

namespace cryptoaccel::dpdk {

class DpdkSession final : public DriverSession {
 public:
  DpdkSession(const ca_dpdk_backend& backend, int device, const Algorithm& algorithm,
              int backend_algorithm, const ca_dpdk_capability& offered,
              std::span<const std::uint8_t> key);
  ~DpdkSession() override;
  DpdkSession(const DpdkSession&) = delete;
  DpdkSession& operator=(const DpdkSession&) = delete;

  std::size_t process(std::span<Request> batch) noexcept override;
  std::size_t process_uniform(std::span<Request> batch) noexcept override;

 private:
  struct Shape {
    int direction = 0;
    std::uint32_t iv_length = 0, digest_length = 0, aad_length = 0;
    void* handle = nullptr;

    bool same_lengths(const Shape& o) const noexcept {
      return direction == o.direction && iv_length == o.iv_length &&
             digest_length == o.digest_length && aad_length == o.aad_length;
    }
  };

  // A queue pair of the device, taken on first need and given back when
  // the batch is done.
  struct QueuePairHeld {
    const ca_dpdk_backend& backend;
    int device;
    void* pair = nullptr;
    QueuePairHeld(const ca_dpdk_backend& b, int d) noexcept : backend(b), device(d) {}
    QueuePairHeld(const QueuePairHeld&) = delete;
    QueuePairHeld& operator=(const QueuePairHeld&) = delete;
    ~QueuePairHeld();
    void* get();  // null when the device is gone
  };

  // The DPDK session for a shape (what it fixes of a request: direction
  // and lengths), made on first use; null with `why` set
  // when there is none.
  void* session_for(const Shape& wanted, ErrorCode& why);
  template <bool kUniform>
  std::size_t run_bursts(std::span<Request> batch) noexcept;
  template <AlgorithmKind kKind, bool kUniform>
  std::size_t collect(std::span<Request> batch, std::size_t& next, QueuePairHeld& pair,
                      void*& session, unsigned& arrived);
  // HMAC(key, "") into `out`, on a queue pair: see dpdk_session.cpp.
  ErrorCode empty_message_mac(QueuePairHeld& pair, std::span<std::uint8_t> out);
  // One plain digest of `in` on `pair` with `session`.
  bool plain_digest(void* pair, void* session, std::span<const std::uint8_t> in,
                    std::span<std::uint8_t> out);

  const ca_dpdk_backend& backend_;
  int device_;
  const Algorithm& algorithm_;
  int backend_algorithm_;
  ca_dpdk_capability offered_;
  SecretBytes key_;  // DPDK sessions are made lazily, per shape
  std::vector<Shape> shapes_;
  // The shape of the last request served, packed as collect() compares
  // it, and its DPDK session (null: none).
  std::uint64_t last_low_ = 0, last_high_ = 0;
  void* last_session_ = nullptr;
  std::vector<void*> evicted_;     // shapes given up, freed once no job names them
  SecretBytes empty_message_mac_;  // made on first need
};

}  // namespace cryptoaccel::dpdk
