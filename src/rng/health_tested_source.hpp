// A raw source behind the SP 800-90B health tests: the RandomSource that
// open_random_source() returns. Not thread-safe: one reader at a time.
#pragma once

#include <memory>
#include <string>

#include "cryptoaccel/random.hpp"
#include "health_tests.hpp"
#include "raw_source.hpp"

namespace cryptoaccel::rng {

class HealthTestedSource final : public RandomSource {
 public:
  // Start-up test (§4.3): unless `info.kind` is input, the first
  // kStartupSamples samples are tested and thrown away before the first read
  // returns anything. Input sources are tested as they are read: their bytes
  // are the data, not a device's warm-up.
  static constexpr std::size_t kStartupSamples = 1024;

  HealthTestedSource(RandomSourceInfo info, std::unique_ptr<RawSource> raw);

  std::size_t read(std::span<std::uint8_t> out) override;
  const RandomSourceInfo& info() const noexcept override { return info_; }
  const HealthParameters& health() const noexcept override { return health_; }
  RandomSourceStats stats() const noexcept override { return stats_; }

  // Runs the start-up test now rather than on the first read.
  void start();

 private:
  // Tests `samples`; on failure wipes them, takes the source out of
  // service and throws HealthTestFailure.
  void check(std::span<std::uint8_t> samples);

  RandomSourceInfo info_;
  HealthParameters health_;
  std::unique_ptr<RawSource> raw_;
  RepetitionCountTest rct_;
  AdaptiveProportionTest apt_;
  RandomSourceStats stats_;
  bool started_ = false;
  std::string failure_;  // why the source is out of service
};

}  // namespace cryptoaccel::rng
