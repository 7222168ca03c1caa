// One cryptodev session of one client: an algorithm and a key on the
// framework, through the public API. Its state follows cryptodev-linux: the
// IV after a cipher request is kept for a request that brings none, and a
// digest runs on across COP_FLAG_UPDATE requests. Calls return 0 or a
// positive errno, as the server replies; nothing throws after create().
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>

#include "cryptoaccel/session.hpp"
#include "service.hpp"

namespace cryptoaccel::devcrypto {

class ServerSession {
 public:
  // Throws cryptoaccel::Error when the framework refuses the key or the
  // algorithm (the caller answers EINVAL, as cryptodev-linux does).
  ServerSession(const Service& service, AlgorithmId id, std::span<const std::uint8_t> key);
  ~ServerSession();

  const Algorithm& algorithm() const noexcept { return *algorithm_; }
  // One client's threads may share a session; its requests take turns.
  std::mutex& mutex() noexcept { return mutex_; }

  // Cipher: `iv` null continues from the IV the last request left; `iv_out`
  // (null or iv_size bytes) receives the IV after this one.
  int cipher(bool encrypt, const std::uint8_t* iv, std::span<const std::uint8_t> in,
             std::span<std::uint8_t> out, std::uint8_t* iv_out) noexcept;
  // Digest/HMAC with cryptodev's flags; writes the digest into `mac` (output
  // size bytes) when the request finishes the hash, and says so.
  int hash(std::uint16_t flags, std::span<const std::uint8_t> in, std::uint8_t* mac,
           bool& finished) noexcept;
  // Will a hash request with these flags and length finish the hash?
  static bool finishes(std::uint16_t flags, std::size_t len) noexcept;
  // AEAD seal (out = ciphertext || tag) or open (in = ciphertext || tag).
  int aead(bool encrypt, std::span<const std::uint8_t> iv, std::span<const std::uint8_t> aad,
           std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
           std::size_t tag_len) noexcept;

 private:
  void advance_iv(bool encrypt, std::span<const std::uint8_t> in,
                  std::span<const std::uint8_t> out) noexcept;

  const Algorithm* algorithm_;
  std::mutex mutex_;
  std::unique_ptr<CipherSession> cipher_;
  std::unique_ptr<AeadSession> aead_;
  std::unique_ptr<DigestSession> digest_;
  bool hashing_ = false;  // updates since the last final
  std::array<std::uint8_t, 16> iv_{};
};

// The errno a request's failure is answered with.
int errno_of(ErrorCode code) noexcept;

}  // namespace cryptoaccel::devcrypto
