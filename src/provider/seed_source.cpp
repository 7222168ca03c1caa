#include "seed_source.hpp"

#include <openssl/crypto.h>

#include <cmath>
#include <sstream>

namespace cryptoaccel::provider {

SeedSource::SeedSource(std::string name) : name_(std::move(name)) {}

SeedSource::~SeedSource() = default;

RandomSource& SeedSource::open_locked() {
  if (source_ == nullptr) {
    // Retried on every request while it fails: the reason (no device, no
    // permission) stays on the error queue each time rather than once.
    try {
      source_ = open_random_source(name_);
      open_error_.clear();
    } catch (const std::exception& e) {
      open_error_ = e.what();
      throw;
    }
  }
  return *source_;
}

std::size_t SeedSource::length_for(int entropy_bits, std::size_t min_length,
                                   std::size_t max_length) {
  std::lock_guard lock(mutex_);
  try {
    const double per_byte = open_locked().health().entropy_per_sample;
    // Credit only what the health tests claim per byte (2 bits): the bytes
    // are as good as the source, and the claim is the one its alarms are
    // set from. A 256-bit DRBG with its nonce takes 192 bytes per seeding.
    std::size_t length =
        entropy_bits > 0 ? static_cast<std::size_t>(std::ceil(entropy_bits / per_byte)) : 0;
    if (length < min_length) length = min_length;
    if (length > max_length)
      throw InvalidArgument("CRYPTOACCEL-SEED: " + std::to_string(entropy_bits) +
                            " bits of entropy take " + std::to_string(length) + " bytes of " +
                            source_->info().name + ", more than the " + std::to_string(max_length) +
                            " the DRBG accepts");
    return length;
  } catch (...) {
    ++counters_.failures;
    throw;
  }
}

void SeedSource::fill(std::span<std::uint8_t> out) {
  std::lock_guard lock(mutex_);
  try {
    RandomSource& source = open_locked();
    std::size_t done = 0;
    while (done < out.size()) {
      const std::size_t n = source.read(out.subspan(done));
      // Only input sources (file, stdin) end: a seed must never be padded
      // or cut short.
      if (n == 0)
        throw DriverFailure("CRYPTOACCEL-SEED: " + source.info().name + " ended after " +
                            std::to_string(done) + " of " + std::to_string(out.size()) + " bytes");
      done += n;
    }
  } catch (...) {
    OPENSSL_cleanse(out.data(), out.size());
    ++counters_.failures;
    throw;
  }
  ++counters_.calls;
  counters_.bytes += out.size();
}

void SeedSource::count_failure() noexcept {
  std::lock_guard lock(mutex_);
  ++counters_.failures;
}

SeedCounters SeedSource::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

bool SeedSource::out_of_service() const {
  std::lock_guard lock(mutex_);
  return source_ != nullptr && source_->stats().failed;
}

std::string SeedSource::text() const {
  std::lock_guard lock(mutex_);
  std::ostringstream out;
  out << (source_ != nullptr ? source_->info().name : name_) << " calls=" << counters_.calls
      << " bytes=" << counters_.bytes << " failures=" << counters_.failures;
  if (source_ != nullptr) {
    const RandomSourceStats stats = source_->stats();
    out << " tested=" << stats.tested_bytes << " (" << source_->info().description
        << (stats.failed ? ", out of service" : "") << ')';
  } else if (!open_error_.empty()) {
    out << " (not open: " << open_error_ << ')';
  } else {
    out << " (not opened yet)";
  }
  return out.str();
}

}  // namespace cryptoaccel::provider
