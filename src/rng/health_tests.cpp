#include "health_tests.hpp"

#include <cmath>
#include <string>

#include "cryptoaccel/random.hpp"

namespace cryptoaccel::rng {

std::size_t RepetitionCountTest::feed(std::span<const std::uint8_t> samples) noexcept {
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (count_ != 0 && samples[i] == value_) {
      if (++count_ >= cutoff_) return i;
    } else {
      value_ = samples[i];
      count_ = 1;
    }
  }
  return samples.size();
}

std::size_t AdaptiveProportionTest::feed(std::span<const std::uint8_t> samples) noexcept {
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (seen_ == 0) {
      value_ = samples[i];
      count_ = 1;
    } else if (samples[i] == value_ && ++count_ >= cutoff_) {
      seen_ = 0;  // a new window starts after a failure
      return i;
    }
    if (++seen_ == window_) seen_ = 0;
  }
  return samples.size();
}

unsigned critical_binomial(unsigned n, double p, double alpha) {
  // The upper tail summed from k = n down: each term is tiny where it
  // matters, so nothing is lost to 1 - (almost 1).
  const long double lp = std::log(static_cast<long double>(p));
  const long double lq = std::log1p(-static_cast<long double>(p));
  const long double ln_n1 = std::lgamma(static_cast<long double>(n) + 1);
  long double tail = 0;  // P(X > k)
  for (unsigned k = n; k > 0; --k) {
    const long double log_pmf = ln_n1 - std::lgamma(static_cast<long double>(k) + 1) -
                                std::lgamma(static_cast<long double>(n - k) + 1) + k * lp +
                                (n - k) * lq;
    tail += std::exp(log_pmf);  // now P(X >= k) = P(X > k - 1)
    if (tail > alpha) return k;
  }
  return 0;
}

}  // namespace cryptoaccel::rng

namespace cryptoaccel {

HealthParameters health_parameters(double entropy_per_sample, unsigned bits_per_sample) {
  if (bits_per_sample != 1 && bits_per_sample != 8)
    throw InvalidArgument("health tests take 1-bit or 8-bit samples, not " +
                          std::to_string(bits_per_sample) + "-bit");
  if (!(entropy_per_sample > 0) || entropy_per_sample > bits_per_sample)
    throw InvalidArgument("claimed entropy " + std::to_string(entropy_per_sample) +
                          " bits per sample is outside (0, " + std::to_string(bits_per_sample) +
                          "]");
  constexpr double kMinusLog2Alpha = 20;  // alpha = 2^-20
  HealthParameters h;
  h.entropy_per_sample = entropy_per_sample;
  h.bits_per_sample = bits_per_sample;
  h.rct_cutoff = 1 + static_cast<unsigned>(std::ceil(kMinusLog2Alpha / entropy_per_sample));
  h.apt_window = bits_per_sample == 1 ? 1024 : 512;
  h.apt_cutoff = 1 + rng::critical_binomial(h.apt_window, std::exp2(-entropy_per_sample),
                                            std::exp2(-kMinusLog2Alpha));
  return h;
}

}  // namespace cryptoaccel
