#include "health_tested_source.hpp"

#include <openssl/crypto.h>

#include <array>
#include <cstdio>

namespace cryptoaccel::rng {
namespace {

std::string format_entropy(double h) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", h);
  return text;
}

std::string hex_byte(std::uint8_t b) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", b);
  return text;
}

}  // namespace

HealthTestedSource::HealthTestedSource(RandomSourceInfo info, std::unique_ptr<RawSource> raw)
    : info_(std::move(info)),
      health_(health_parameters(info_.entropy_per_sample)),
      raw_(std::move(raw)),
      rct_(health_.rct_cutoff),
      apt_(health_.apt_window, health_.apt_cutoff) {}

void HealthTestedSource::start() {
  if (started_) return;
  started_ = true;
  if (info_.kind == RandomSourceKind::input) return;
  std::array<std::uint8_t, kStartupSamples> samples;
  std::size_t got = 0;
  while (got < samples.size()) {
    const std::size_t n = raw_->read(std::span(samples).subspan(got));
    if (n == 0) throw DriverFailure(info_.name + ": no data for the start-up health test");
    got += n;
  }
  check(samples);
  OPENSSL_cleanse(samples.data(), samples.size());
}

std::size_t HealthTestedSource::read(std::span<std::uint8_t> out) {
  if (!failure_.empty()) throw HealthTestFailure(failure_);
  start();
  ++stats_.reads;
  const std::size_t n = raw_->read(out);
  check(out.first(n));
  stats_.bytes += n;
  return n;
}

void HealthTestedSource::check(std::span<std::uint8_t> samples) {
  const std::size_t rct_stop = rct_.feed(samples);
  const std::size_t apt_stop = apt_.feed(samples.first(std::min(rct_stop + 1, samples.size())));
  if (rct_stop == samples.size() && apt_stop == samples.size()) {
    stats_.tested_bytes += samples.size();
    return;
  }
  const std::string claim = " (claimed min-entropy " + format_entropy(health_.entropy_per_sample) +
                            " bits per byte, alpha 2^-20)";
  if (rct_stop <= apt_stop) {
    failure_ = info_.name +
               ": SP 800-90B repetition count test failed: " + std::to_string(rct_.cutoff()) +
               " bytes in a row equal to " + hex_byte(rct_.value()) + ", cutoff " +
               std::to_string(rct_.cutoff()) + claim;
  } else {
    failure_ =
        info_.name + ": SP 800-90B adaptive proportion test failed: " + hex_byte(apt_.value()) +
        " occurred " + std::to_string(apt_.cutoff()) + " times in a window of " +
        std::to_string(apt_.window()) + " bytes, cutoff " + std::to_string(apt_.cutoff()) + claim;
  }
  failure_ += "; source taken out of service";
  stats_.tested_bytes += std::min(rct_stop, apt_stop) + 1;
  stats_.failed = true;
  OPENSSL_cleanse(samples.data(), samples.size());
  throw HealthTestFailure(failure_);
}

}  // namespace cryptoaccel::rng
