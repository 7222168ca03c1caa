// One cryptodev session of one client, on the framework through the public
// API. As in cryptodev-linux, a session holds a cipher, a hash or HMAC, or
// both (what CIOCAUTHCRYPT's TLS and SRTP modes combine, and CIOCCRYPT
// chains: hash then encrypt, decrypt then hash). Its state follows the
// module: the IV after a cipher request is kept for a request that brings
// none, and a hash runs on across COP_FLAG_UPDATE requests. The NULL cipher
// (CRYPTO_NULL, the kernel's ecb(cipher_null)) copies its input. Calls return
// 0 or a positive errno, as the server replies; nothing throws after the
// constructor.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

#include "cryptoaccel/session.hpp"
#include "service.hpp"

namespace cryptoaccel::devcrypto {

struct SessionParts {
  std::optional<AlgorithmId> cipher;  // a cipher or AEAD of the framework
  bool null_cipher = false;           // CRYPTO_NULL instead
  std::span<const std::uint8_t> cipher_key;
  std::optional<AlgorithmId> hash;  // a digest or HMAC
  std::span<const std::uint8_t> mac_key;
};

class ServerSession;

// A cipher request started on a driver that gathers (mb), to meet other
// requests, of this client and others, in one burst. It runs in place:
// `data` holds the input, then the output. Its session's until `ready`.
struct StartedCipher {
  Request request;
  AsyncTicket ticket;
  std::span<std::uint8_t> data;
  std::array<std::uint8_t, 16> iv{};
  std::array<std::uint8_t, 16> next_iv{};  // the session's IV after this request
  std::uint64_t sequence = 0;              // of its session's started requests
  ServerSession* session = nullptr;
  // Told once the request has run (the client's poll() wakes): called
  // after `ready` is set, with only these copies, as the request may be
  // gone by then.
  void (*on_ready)(void* context, std::uint64_t file) = nullptr;
  void* ready_context = nullptr;
  std::uint64_t ready_file = 0;
  std::atomic<bool> ready{false};
  int error() const noexcept;  // once ready: 0 or the errno
};

class ServerSession {
 public:
  // Throws cryptoaccel::Error when the framework refuses a key or an
  // algorithm (the caller answers EINVAL, as cryptodev-linux does).
  ServerSession(const Service& service, const SessionParts& parts);
  ~ServerSession();

  // One client's threads may share a session; its requests take turns.
  std::mutex& mutex() noexcept { return mutex_; }

  bool has_cipher() const noexcept { return cipher_algorithm_ != nullptr || null_cipher_; }
  bool has_hash() const noexcept { return digest_ != nullptr; }
  bool aead() const noexcept { return aead_ != nullptr; }
  // Null for no cipher and for the NULL cipher.
  const Algorithm* cipher_algorithm() const noexcept { return cipher_algorithm_; }
  const Algorithm* hash_algorithm() const noexcept { return hash_algorithm_; }
  // cryptodev-linux's "stream" ciphers: CTR, GCM and NULL (SRTP takes only those).
  bool stream_cipher() const noexcept;
  // The kernel's block size of the cipher: what TLS pads to (CTR and NULL: 1).
  std::size_t block_size() const noexcept;
  std::size_t iv_size() const noexcept;
  std::size_t digest_size() const noexcept;
  // May a CIOCCRYPT request of `len` bytes go to the cipher?
  bool cipher_takes(std::size_t len) const noexcept;
  // The kernel's generic names that CIOCGSESSINFO reports ("" for none).
  const char* cipher_name() const noexcept;
  const char* hash_name() const noexcept;

  // Cipher: `iv` null continues from the IV the last request left; `iv_out`
  // (null or iv_size bytes) receives the IV after this one.
  int cipher(bool encrypt, const std::uint8_t* iv, std::span<const std::uint8_t> in,
             std::span<std::uint8_t> out, std::uint8_t* iv_out) noexcept;
  // May a cipher request with these flags and its own IV (`iv` given) be
  // started rather than run (start_cipher)?
  bool may_start(bool has_iv, std::uint16_t flags, std::size_t len) const noexcept;
  // Starts `job` (its data, and `iv` of iv_size bytes) where a driver that
  // gathers serves this session: true, and the request runs in a burst
  // later (job.ready then set); false, with nothing started: run cipher().
  // Under mutex(). The job stays untouched until ready.
  bool start_cipher(bool encrypt, const std::uint8_t* iv, StartedCipher& job) noexcept;
  // Runs the bursts this session's started requests wait in, on this
  // thread, and returns when every one has run. Under mutex().
  void finish_started() noexcept;
  // Runs the queue of the driver this session starts on, once; under mutex().
  void flush_started() noexcept;
  bool has_started() const noexcept { return started_.load(std::memory_order_acquire) != 0; }

  // The hash: a new one, more data, the end (digest_size bytes to `out`).
  void hash_reset() noexcept;
  int hash_update(std::span<const std::uint8_t> in) noexcept;
  int hash_final(std::uint8_t* out) noexcept;
  // Makes this session's hash continue from `from`'s (CIOCCPHASH).
  int copy_hash_from(const ServerSession& from) noexcept;
  // Will a hash request with these flags and length finish the hash?
  static bool finishes(std::uint16_t flags, std::size_t len) noexcept;
  // AEAD seal (out = ciphertext || tag) or open (in = ciphertext || tag).
  int aead(bool encrypt, std::span<const std::uint8_t> iv, std::span<const std::uint8_t> aad,
           std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
           std::size_t tag_len) noexcept;

 private:
  void advance_iv(bool encrypt, std::span<const std::uint8_t> in,
                  std::span<const std::uint8_t> out) noexcept;
  static void started_done(AsyncTicket& ticket) noexcept;

  const Algorithm* cipher_algorithm_ = nullptr;
  const Algorithm* hash_algorithm_ = nullptr;
  bool null_cipher_ = false;
  std::mutex mutex_;
  std::unique_ptr<CipherSession> cipher_;
  std::unique_ptr<AeadSession> aead_;
  std::unique_ptr<DigestSession> digest_;
  std::array<std::uint8_t, 16> iv_{};
  // Started requests not run yet; the latest sequence number given, and the
  // latest whose IV is in iv_ (they may finish out of order). iv_mutex_
  // guards iv_ against a burst's thread, which holds no mutex() of ours.
  std::atomic<std::size_t> started_{0};
  std::uint64_t started_sequence_ = 0;
  std::uint64_t iv_sequence_ = 0;
  std::mutex iv_mutex_;
};

// The errno a request's failure is answered with.
int errno_of(ErrorCode code) noexcept;

}  // namespace cryptoaccel::devcrypto
