// The driver SDK. A driver is one folder under src/drivers/ that implements
// these interfaces, declares a constant capability table and adds one line to
// src/drivers/builtin_drivers.def. Drivers include only this header and the
// public API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cryptoaccel/algorithm.hpp"
#include "cryptoaccel/driver/secret_bytes.hpp"
#include "cryptoaccel/error.hpp"
#include "cryptoaccel/request.hpp"

namespace cryptoaccel {

enum class DriverKind : std::uint8_t { software, hardware };

std::string_view to_string(DriverKind kind) noexcept;

// What a driver can do for one algorithm. Lengths are in bytes and may be
// narrower than the algorithm allows (a kernel driver that takes 12-byte GCM
// nonces only); the dispatcher routes other requests elsewhere.
// Every Operation, as Capability::operations counts them (1 << op).
inline constexpr std::uint8_t kEveryOperation = 0xff;
// No limit of a length (Capability::max_aad).
inline constexpr std::size_t kAnyLength = SIZE_MAX;
constexpr std::uint8_t operation_bit(Operation op) noexcept {
  return static_cast<std::uint8_t>(1u << static_cast<unsigned>(op));
}

struct Capability {
  AlgorithmId algorithm;
  SizeRange key_sizes;
  SizeRange iv_sizes;
  SizeRange tag_sizes;
  std::size_t max_request;  // largest `in` of one request
  // Every request's `in` is a whole number of these bytes, a power of two
  // (1: any length the algorithm allows). A device stricter than the
  // algorithm says so here: cryptodev-linux takes XTS only in whole blocks,
  // where OpenSSL and the kernel's xts(aes) steal ciphertext for the rest.
  std::size_t input_multiple = 1;
  // The longest AAD of an AEAD request it takes (a DPDK device's AAD length
  // is 16-bit); a longer one goes to another driver, and batches to it are
  // checked request by request.
  std::size_t max_aad = kAnyLength;
  // The operations it takes (operation_bit()s). A driver that takes only
  // some (a kernel's pkcs1pad(rsa) encrypts and decrypts, and signs with
  // no other implementation) may also decline a request of those with the
  // status `unsupported` (a padding it lacks): the request then goes to
  // the next driver, as if this one had not been a candidate.
  std::uint8_t operations = kEveryOperation;
};

// Everything of a driver that the framework needs besides its code.
struct DriverTraits {
  DriverKind kind = DriverKind::software;
  int priority = 0;               // higher wins when no measurement decides
  bool automatic = true;          // may the dispatcher choose it without being asked?
  bool self_test = true;          // false only for drivers that do no cryptography
  std::size_t max_in_flight = 1;  // requests one session can usefully keep in flight
  // Does open_stream() give digest and MAC streams? False for a driver that
  // takes one-shot requests only (mb: its lanes hash whole messages).
  bool streams_digests = true;
  // Do requests from many sessions and threads meet in one run (mb's
  // bursts)? Then calibration measures the driver at several depths up to
  // max_in_flight, and the dispatcher sends it a batch deep enough to beat
  // the best driver for one request.
  bool gathers = false;
};

// The running digest or MAC of one stream of updates. Owned by the caller.
class DigestStream {
 public:
  virtual ~DigestStream() = default;
  // Both return the failure instead of throwing: they sit on the hot path.
  virtual ErrorCode update(std::span<const std::uint8_t> in) noexcept = 0;
  // Writes out.size() bytes (the full digest length) and ends the stream.
  virtual ErrorCode final(std::span<std::uint8_t> out) noexcept = 0;
  // An independent copy of the running state (TLS copies its transcript
  // hashes mid-stream), or null when the driver cannot copy one. Throws Error
  // on driver failure.
  virtual std::unique_ptr<DigestStream> clone() const { return nullptr; }
};

// One algorithm and key on one driver. A driver session serves one thread at
// a time; the framework never shares one between threads.
class DriverSession {
 public:
  virtual ~DriverSession() = default;

  // Processes a batch and returns how many requests completed; each carries
  // its own status. Lengths have been validated by the framework against the
  // capability table. Synchronous drivers complete the whole batch. On an
  // AEAD open that fails, the driver sets authentication_failed; the
  // framework wipes the output.
  virtual std::size_t process(std::span<Request> batch) noexcept = 0;

  // process() for a batch whose requests all have the first one's shape:
  // its operation and the lengths of its IV, tag and AAD (a digest's, its
  // output's too), as the framework found when it checked them. A driver
  // may then decide once per batch what depends on those alone. Every
  // request arrives with the status ok, which a driver may leave on those
  // that succeed.
  virtual std::size_t process_uniform(std::span<Request> batch) noexcept { return process(batch); }

  // One request, completed on return with its status set: the hot path of a
  // stream, which a driver may override to skip the batch loop (at 16 bytes
  // the loop's prologue and epilogue cost a measurable share of a request).
  virtual void process_one(Request& request) noexcept {
    if (process({&request, 1}) != 1) request.status = ErrorCode::driver_failure;
  }

  // For a driver that gathers: queues `batch` to run with others' requests
  // and returns true; each request's status is set when it runs, and
  // `ticket` counts them down (AsyncTicket). False: the driver does not
  // queue, and the caller runs process() instead.
  virtual bool start(std::span<Request> /*batch*/, AsyncTicket& /*ticket*/) noexcept {
    return false;
  }
  // Runs on this thread whatever the driver holds queued for this
  // session's algorithm, started requests and others'.
  virtual void flush() noexcept {}

  // A new digest/MAC stream for update/final use, or null when the driver
  // does not stream this algorithm. Throws Error on driver failure.
  virtual std::unique_ptr<DigestStream> open_stream() { return nullptr; }
};

// Requests a driver ran together: its runs (mb's bursts) and the requests
// in them; requests / bursts is the depth reached.
struct BurstCount {
  std::uint64_t bursts = 0;
  std::uint64_t requests = 0;
};

class Driver {
 public:
  virtual ~Driver() = default;

  // Unique and stable: "soft", "null", "afalg:cbc-aes-aesni".
  virtual std::string_view name() const noexcept = 0;
  // One line for `cryptoaccel list`: what runs underneath.
  virtual std::string description() const = 0;
  virtual DriverTraits traits() const noexcept = 0;
  virtual std::span<const Capability> capabilities() const noexcept = 0;

  // Opens a session with `key` (already checked against the capability).
  // The driver copies what it needs of the key and wipes its copies when the
  // session ends. Throws Error (DriverFailure, Unsupported) when it cannot.
  virtual std::unique_ptr<DriverSession> open_session(const Algorithm& algorithm,
                                                      std::span<const std::uint8_t> key) = 0;

  // A driver that runs requests together counts them here, per algorithm,
  // since it was made (`cryptoaccel speed` shows the depth reached); what a
  // session ran alone may be counted when it closes, as usage is. Others
  // count nothing.
  virtual BurstCount bursts(AlgorithmId /*algorithm*/) const noexcept { return {}; }
};

// What a driver family found on this machine: zero or more instances, and
// when there are none, the reason (shown by `cryptoaccel list`). Notes are
// reasons for algorithms the family left out (e.g. legacy provider missing).
struct DriverProbe {
  std::vector<std::unique_ptr<Driver>> drivers;
  std::string absent_reason;
  std::vector<std::string> notes;
};

// A family's probe. `setting` is what the configuration says for that
// family (FrameworkOptions::family_settings: the dpdk driver's EAL
// arguments); empty when it says nothing.
using DriverProbeFunction = DriverProbe (*)(std::string_view setting);

}  // namespace cryptoaccel
