#include "stats.hpp"

#include <fmt/core.h>

namespace cryptoaccel::tools::rngtest {

void Timing::add(std::uint64_t ns) noexcept {
  if (samples == 0 || ns < min_ns) min_ns = ns;
  if (ns > max_ns) max_ns = ns;
  sum_ns += ns;
  ++samples;
}

void Timing::add_spread(std::uint64_t total_ns, std::uint64_t count) noexcept {
  if (count == 0) return;
  const std::uint64_t each = total_ns / count;
  if (samples == 0 || each < min_ns) min_ns = each;
  if (each > max_ns) max_ns = each;
  sum_ns += total_ns;
  samples += count;
}

std::string counter_line(std::string_view name, std::uint64_t value) {
  return fmt::format("rngtest: {}: {}", name, value);
}

std::string rate_line(std::string_view name, const Timing& t, std::uint64_t bits_per_sample) {
  const double bits = static_cast<double>(bits_per_sample);
  double low = 0, average = 0, high = 0;
  if (t.max_ns > 0) low = 1e9 * bits / static_cast<double>(t.max_ns);
  if (t.min_ns > 0) high = 1e9 * bits / static_cast<double>(t.min_ns);
  if (t.samples > 0 && t.sum_ns > 0)
    average = 1e9 * bits * static_cast<double>(t.samples) / static_cast<double>(t.sum_ns);
  static constexpr char kPrefixes[] = "KMGTPE";
  std::size_t scale = 0;
  while (low >= 1024 && average >= 1024 && high >= 1024 && scale < sizeof kPrefixes - 1) {
    ++scale;
    low /= 1024, average /= 1024, high /= 1024;
  }
  const std::string unit = scale ? fmt::format("{}ibits", kPrefixes[scale - 1]) : "bits";
  return fmt::format("rngtest: {}: (min={:.3f}; avg={:.3f}; max={:.3f}){}/s", name, low, average,
                     high, unit);
}

void print_stats(const Stats& s, bool pipe) {
  constexpr std::uint64_t kBlockBits = fips140_2::kBlockBytes * 8;
  std::string out = counter_line("bits received from input", s.bytes_received * 8) + "\n";
  if (pipe) out += counter_line("bits sent to output", s.bytes_sent * 8) + "\n";
  out += counter_line("FIPS 140-2 successes", s.good_blocks) + "\n";
  out += counter_line("FIPS 140-2 failures", s.bad_blocks) + "\n";
  for (std::size_t i = 0; i < fips140_2::kTestCount; ++i)
    out += counter_line(fips140_2::kTestNames[i], s.failures[i]) + "\n";
  out += rate_line("input channel speed", s.input, kBlockBits) + "\n";
  out += rate_line("FIPS tests speed", s.fips, kBlockBits) + "\n";
  if (pipe) out += rate_line("output channel speed", s.output, kBlockBits) + "\n";
  const auto elapsed = std::chrono::steady_clock::now() - s.start;
  out += fmt::format("rngtest: Program run time: {} microseconds\n",
                     std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count());
  std::fputs(out.c_str(), stderr);
}

}  // namespace cryptoaccel::tools::rngtest
