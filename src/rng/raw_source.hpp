// The sources behind open_random_source(), before the health tests: each
// family probes whether it is here and opens a reader. Nothing here runs
// the health tests; HealthTestedSource wraps every one of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "cryptoaccel/random.hpp"

namespace cryptoaccel::rng {

class RawSource {
 public:
  virtual ~RawSource() = default;
  // Fills `out`; an input source (file, stdin) returns less at its end.
  // Throws DriverFailure naming the source and the system error.
  virtual std::size_t read(std::span<std::uint8_t> out) = 0;
};

// The min-entropy per byte that the health tests are set from, for every
// source (docs/rng.md, "Health tests"): low enough that good data never
// trips them at any volume, high enough that a stuck or badly biased source
// is stopped within a few bytes.
inline constexpr double kClaimedEntropyPerByte = 2.0;

// Each family: what probing found (name, kind, description, availability
// and why) and a reader. open_* throw Unsupported when the source is absent
// and DriverFailure when it is present but cannot be opened.
RandomSourceInfo probe_hwrng();
std::unique_ptr<RawSource> open_hwrng();

RandomSourceInfo probe_getrandom();
std::unique_ptr<RawSource> open_getrandom();

RandomSourceInfo probe_rdrand();
std::unique_ptr<RawSource> open_rdrand();
RandomSourceInfo probe_rdseed();
std::unique_ptr<RawSource> open_rdseed();
RandomSourceInfo probe_rndr();
std::unique_ptr<RawSource> open_rndr();
RandomSourceInfo probe_rndrrs();
std::unique_ptr<RawSource> open_rndrrs();

// `algorithm`: a kernel rng name or driver name ("stdrng", "jitterentropy_rng").
RandomSourceInfo probe_afalg(std::string_view algorithm);
std::unique_ptr<RawSource> open_afalg(std::string_view algorithm);

// `path` "-" is standard input.
RandomSourceInfo describe_file(std::string_view path);
std::unique_ptr<RawSource> open_file(std::string_view path);

// "strerror(errno)" for messages.
std::string system_error_text(int error);

}  // namespace cryptoaccel::rng
