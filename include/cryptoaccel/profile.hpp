// Dispatch profiles: what `cryptoaccel calibrate` measured on this machine,
// per driver, algorithm and request size, so the dispatcher can choose the
// fastest path for each request instead of one path for all sizes.
//
// A profile is a versioned JSON document (docs/dispatch.md). It records each
// driver's identity (name, description, kind, priority); a profile made with
// other drivers (another machine, a kernel module loaded or gone, another
// OpenSSL) is stale and is not used.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cryptoaccel/algorithm.hpp"
#include "cryptoaccel/framework.hpp"

namespace cryptoaccel {

inline constexpr int kProfileVersion = 1;

// The largest profile file read (docs/dispatch.md): a measurement takes
// about 250 bytes as `cryptoaccel calibrate` writes it, so 4 MiB holds some
// 16,000 of them, 25 drivers x 30 algorithms x 7 sizes x 3 (one at a time,
// in flight, loaded) with room to spare; anything larger is not a profile.
inline constexpr std::size_t kMaxProfileBytes = std::size_t{4} << 20;
// The largest request size and in_flight / workers a measurement may name
// (2^40; on a 32-bit system the largest size_t, no request being larger).
inline constexpr std::size_t kMaxMeasuredSize =
    static_cast<std::size_t>(std::min<std::uint64_t>(std::uint64_t{1} << 40, SIZE_MAX));
inline constexpr unsigned kMaxMeasuredInFlight = 1u << 16;

// The request sizes the dispatcher tells apart: a request uses the figures
// of the largest of these not above its size (the first below 64 bytes).
inline constexpr std::size_t kSizeBuckets[] = {16, 64, 256, 1024, 4096, 16384, 65536};
inline constexpr std::size_t kSizeBucketCount = std::size(kSizeBuckets);

constexpr std::size_t size_bucket(std::size_t size) noexcept {
  // Buckets grow by 4x from 16 (2^4): the bucket is half of log2(size) - 4.
  const int log2 = size == 0 ? 0 : 63 - __builtin_clzll(size);
  const int bucket = (log2 - 4) / 2;
  return bucket < 0                                     ? 0
         : bucket >= static_cast<int>(kSizeBucketCount) ? kSizeBucketCount - 1
                                                        : std::size_t(bucket);
}

struct Measurement {
  std::string driver;
  AlgorithmId algorithm;
  std::size_t size = 0;    // bytes per request
  unsigned in_flight = 1;  // requests kept in flight while measuring
  // Threads sending requests at once, each with its own session (1, or one
  // per CPU): with more than one, bytes_per_second is their sum, the
  // driver's capacity when the whole machine uses it.
  unsigned workers = 1;
  double bytes_per_second = 0;      // of elapsed time
  double cpu_seconds_per_byte = 0;  // user + system, of this process
};

struct Profile {
  int version = kProfileVersion;
  std::string created;                         // ISO 8601, UTC
  std::string machine;                         // machine_identity() where made; "" unknown
  std::map<std::string, std::string> drivers;  // name -> identity
  std::vector<Measurement> measurements;
  // The algorithms that `cryptoaccel calibrate --machine` measured faster,
  // or not clearly slower, in OpenSSL's own implementation called by an
  // application than through the provider's sessions on the dispatcher's
  // choice: the provider serves them directly whatever the order says.
  std::vector<AlgorithmId> provider_direct;
};

// This machine as a profile records it: the CPU's model name, family,
// model, stepping and microcode revision (from /proc/cpuinfo). A profile
// made under another is stale: a microcode update can change what is fastest.
std::string machine_identity();

// The identity a profile records for a driver.
std::string driver_identity(const DriverInfo& driver);

// JSON text to a profile and back. parse_profile throws InvalidArgument
// naming what is wrong (not JSON, another format, another version, a bad
// field or number), and nothing else for any text.
Profile parse_profile(std::string_view json);
std::string to_json(const Profile& profile);

// A profile file that exists (or may) but cannot be opened or read:
// permissions, a path through something that is not a folder, an I/O error.
class ProfileUnreadable : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

// Reads and parses a file; throws NotFound when it does not exist,
// ProfileUnreadable when it cannot be opened or read, InvalidArgument when
// it is not a profile, not a regular file (a FIFO or a device is refused
// without reading from it) or over kMaxProfileBytes.
Profile load_profile(const std::string& path);
// Writes atomically (a temporary file renamed over the target), creating
// the folder; throws Error on failure, leaving any old profile in place.
// An existing file keeps its mode, owner and group, and is refused when it
// is not a regular file or not writable by us; a new one is created
// 0666 & ~umask, as a shell redirect creates it.
void save_profile(const Profile& profile, const std::string& path);

// $CRYPTOACCEL_PROFILE, else $XDG_CACHE_HOME/cryptoaccel/profile.json, else
// ~/.cache/cryptoaccel/profile.json.
std::string default_profile_path();

// The machine's own profile, made once for every user of the machine by
// `cryptoaccel calibrate --machine` (at install, or by root at any time):
// $CRYPTOACCEL_MACHINE_PROFILE, else /var/cache/cryptoaccel/machine-profile.json.
// Used where no profile of the user's own is found.
std::string machine_profile_path();

// Why a profile does not fit this machine (machine_identity(), where the
// profile records one) and these drivers, or "" when it does. Only
// automatic drivers count (null is never dispatched to).
std::string profile_mismatch(const Profile& profile, std::span<const DriverInfo> drivers);

struct CalibrationOptions {
  std::vector<std::string> drivers;     // empty: every automatic driver
  std::vector<AlgorithmId> algorithms;  // empty: every algorithm
  std::vector<std::size_t> sizes{std::begin(kSizeBuckets), std::end(kSizeBuckets)};
  double seconds = 0.1;  // per measurement, split over the rounds
  // Every measurement is taken this many times, interleaved with the others,
  // and the fastest kept: a burst of other work on the machine then spoils
  // one round, not the choice.
  unsigned rounds = 3;
  // Called after each measurement: what was measured, how many done of how many.
  std::function<void(const Measurement&, std::size_t done, std::size_t total)> progress;
  // Polled between measurements; true stops early with what was measured.
  std::function<bool()> interrupted;
};

// Measures every driver x algorithm x size on this framework: one request at
// a time, and for drivers that keep several in flight also batches of
// max_in_flight. Throughput is of elapsed time; CPU time is the process's.
Profile calibrate(Framework& framework, const CalibrationOptions& options);

}  // namespace cryptoaccel
