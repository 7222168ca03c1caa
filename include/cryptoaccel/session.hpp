// Sessions: an algorithm and a key, owned by the caller. Every request of a
// session is routed by the dispatcher, so consecutive requests may run on
// different drivers; streaming state (CBC/CTR chaining, running digests) is
// kept so that this never changes a result.
//
// A session serves one thread at a time. Keys are copied into wiped memory and
// wiped when the session ends. All functions throw cryptoaccel::Error.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cryptoaccel/algorithm.hpp"
#include "cryptoaccel/driver/secret_bytes.hpp"
#include "cryptoaccel/framework.hpp"
#include "cryptoaccel/request.hpp"

namespace cryptoaccel {

using Bytes = std::span<const std::uint8_t>;
using MutableBytes = std::span<std::uint8_t>;

// The drivers a session is to use, in order of preference. The first that
// offers the algorithm and takes the key serves every request of the
// session (a pin: a failure there is not moved to another driver). Empty,
// spelled "auto": the dispatcher chooses per request.
class DriverPreference {
 public:
  DriverPreference() = default;
  DriverPreference(std::string driver);  // one driver; "" or "auto": none
  DriverPreference(const char* driver) : DriverPreference(std::string(driver)) {}
  explicit DriverPreference(std::vector<std::string> drivers);
  // "afalg:x, soft": names separated by commas; "" or "auto": none. Names
  // are checked when a session opens (or check_serving_preference()).
  static DriverPreference parse(std::string_view text);

  bool empty() const noexcept { return drivers_.empty(); }
  std::span<const std::string> drivers() const noexcept { return drivers_; }
  // As parse() reads it: "afalg:x,soft", or "auto" when empty.
  std::string text() const;
  bool operator==(const DriverPreference&) const = default;

 private:
  std::vector<std::string> drivers_;
};

struct SessionOptions {
  Framework* framework = nullptr;  // null: Framework::global()
  DriverPreference driver;         // the pin; empty: the dispatcher decides
  // When no preferred driver offers the algorithm or takes the key: false
  // fails with the first one's reason; true leaves the session to the
  // dispatcher (the provider's `driver =`). An unknown name always fails.
  bool fall_back = false;
};

// The driver that would serve every request of every session of
// `algorithm` opened with `options`, whatever its key, IV, tag and size:
// the preference's choice, or the dispatcher's first choice in every size
// bucket, with no load to spread over peers and no overflow. Empty when
// requests may reach more than one driver. The provider hands an algorithm
// whose sole driver is "soft" to OpenSSL's own implementation directly.
std::string sole_driver(const Algorithm& algorithm, const SessionOptions& options = {});

namespace detail {
class SessionCore;
struct StreamState;
}  // namespace detail

// Common to every session: which algorithm, which driver served last.
class Session {
 public:
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  ~Session();

  const Algorithm& algorithm() const noexcept { return *algorithm_; }
  // The driver that completed the latest request ("" before the first).
  std::string_view last_driver() const noexcept;

  // The batch API: independent one-shot requests, each with its own IV and
  // buffers (cipher encrypt/decrypt, AEAD seal/open, Operation::digest for
  // digests and MACs), run together, so that a driver that serves many at
  // once (mb, AF_ALG) takes them in one go. Returns when every request has
  // completed with its own status, and how many completed ok; one request's
  // failure never fails its neighbours, and a failed AEAD open's output
  // holds zeros. A cipher request's `out` is cut to in.size(). A running
  // stream (update()) is not disturbed: its next update re-loads its chain.
  std::size_t process(std::span<Request> batch) noexcept;

  // The same without waiting, for a caller that must not block (an OpenSSL
  // ASYNC job): where a driver that gathers (mb) serves every request of
  // the batch, they are queued there to meet others' in a burst, and start()
  // returns true; each request's status is set when it runs, `ticket`
  // counts them down and its on_done runs after the last, on the thread
  // that ran it (this one, inside start() or flush(), or another caller's).
  // The requests, their buffers and the ticket must stay untouched until
  // then. Returns false, having queued nothing, where no such driver serves
  // them (the caller then runs process()) or a request fails its checks.
  bool start(std::span<Request> batch, AsyncTicket& ticket) noexcept;
  // Runs, on this thread, whatever the driver of this session's started
  // requests holds queued: a starter that has nothing else to do calls it
  // rather than wait for company that may not come.
  void flush() noexcept;

 protected:
  Session(std::string_view algorithm, AlgorithmKind expected, Bytes key,
          const SessionOptions& options);
  Session(const Algorithm& algorithm, std::unique_ptr<detail::SessionCore> core);
  const Algorithm* algorithm_ = nullptr;
  std::unique_ptr<detail::SessionCore> core_;
  // Reused by every request: zeroing a fresh Request per call compiles to a
  // string store that costs more than a small request's cryptography.
  Request request_;
};

enum class Direction : std::uint8_t { encrypt, decrypt };

// ECB, CBC, CTR, XTS, DES and ChaCha20 ciphers, without padding.
class CipherSession : public Session {
 public:
  CipherSession(std::string_view algorithm, Bytes key, const SessionOptions& options = {});

  // One-shot: out.size() must be at least in.size(); out may alias in. ECB/CBC
  // inputs are whole blocks; an XTS input is one data unit of at least 16
  // bytes, with the tweak as IV.
  void encrypt(Bytes iv, Bytes in, MutableBytes out);
  void decrypt(Bytes iv, Bytes in, MutableBytes out);
  std::vector<std::uint8_t> encrypt(Bytes iv, Bytes in);
  std::vector<std::uint8_t> decrypt(Bytes iv, Bytes in);

  // Streaming (ECB, CBC, CTR, ChaCha20): begin() sets direction and IV; each
  // update() continues exactly where the previous one ended (CBC chains the
  // last block, CTR and ChaCha20 keep their counter and position inside a
  // keystream block). ECB/CBC updates are whole blocks. Not available for
  // XTS (one data unit a call).
  void begin(Direction direction, Bytes iv);
  void update(Bytes in, MutableBytes out);

 private:
  void run(Direction direction, Bytes iv, Bytes in, MutableBytes out, bool continues = false);
  void submit(Direction direction, Bytes iv, Bytes in, MutableBytes out, bool continues);
  void update_keystream(Bytes in, MutableBytes out, bool continues);
  Direction stream_direction_ = Direction::encrypt;
  bool streaming_ = false;
  // The driver's state after the stream's last request equals a fresh start
  // from stream_iv_, and nothing else ran since (see Request::continues):
  // every other request of this session clears it.
  bool stream_chained_ = false;
  std::array<std::uint8_t, 16> stream_iv_{};  // the next IV or counter block
  std::size_t stream_offset_ = 0;             // CTR, ChaCha20: bytes used of the current block
};

// AES-GCM and ChaCha20-Poly1305.
class AeadSession : public Session {
 public:
  AeadSession(std::string_view algorithm, Bytes key, const SessionOptions& options = {});

  // Encrypts `in` into `out` (same length, may alias) and writes tag.size()
  // bytes of tag (GCM: 4 to 16; ChaCha20-Poly1305: 16).
  void seal(Bytes iv, Bytes aad, Bytes in, MutableBytes out, MutableBytes tag);
  // Verifies `tag` and decrypts. On AuthenticationFailed `out` holds zeros:
  // no unauthenticated plaintext is ever released.
  void open(Bytes iv, Bytes aad, Bytes in, Bytes tag, MutableBytes out);
};

// Digests (MD5, SHA-1, SHA-2) and HMACs share this shape.
class DigestSession : public Session {
 public:
  // A digest algorithm; no key.
  explicit DigestSession(std::string_view algorithm, const SessionOptions& options = {});
  ~DigestSession();
  DigestSession(DigestSession&&) noexcept;
  DigestSession& operator=(DigestSession&&) noexcept;

  std::size_t size() const noexcept;  // bytes of output

  // One-shot; out.size() must equal size().
  void digest(Bytes in, MutableBytes out);
  std::vector<std::uint8_t> digest(Bytes in);

  // Streaming: update() any number of times, then final(), which ends the
  // stream; the next update() starts a new one.
  void update(Bytes in);
  void final(MutableBytes out);
  std::vector<std::uint8_t> final();
  // Abandons a running stream, if any: the next update() starts a new one.
  void reset() noexcept;

  // An independent session with the same algorithm, key and pin, whose
  // stream (if one is running) continues from this one's state. Throws
  // Unsupported when the driver holding the stream cannot copy it.
  DigestSession clone() const;

 protected:
  DigestSession(std::string_view algorithm, AlgorithmKind kind, Bytes key,
                const SessionOptions& options);

 private:
  DigestSession(const Algorithm& algorithm, std::unique_ptr<detail::SessionCore> core);
  std::unique_ptr<detail::StreamState> stream_;
};

// HMAC with any key length.
class MacSession : public DigestSession {
 public:
  MacSession(std::string_view algorithm, Bytes key, const SessionOptions& options = {});
};

}  // namespace cryptoaccel
