#include "report.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace cryptoaccel::tools::speed {

std::vector<Series> series_of(const Report& report) {
  std::vector<Series> out;
  for (const Measurement& m : report.measurements) {
    auto it = std::find_if(out.begin(), out.end(), [&](const Series& s) {
      return s.algorithm == m.algorithm && s.driver == m.driver;
    });
    if (it == out.end()) {
      out.push_back({m.algorithm, m.driver, std::vector<const Measurement*>(report.sizes.size())});
      it = out.end() - 1;
    }
    const auto at = std::find(report.sizes.begin(), report.sizes.end(), m.size);
    if (at != report.sizes.end()) it->by_size[at - report.sizes.begin()] = &m;
  }
  return out;
}

bool compares_drivers(const Report& report) {
  for (const Measurement& m : report.measurements)
    if (m.driver != "auto") return true;
  return false;
}

std::string label(const Series& series, bool with_driver) {
  std::string text(series.algorithm->name);
  if (with_driver) text += " (" + series.driver + ")";
  return text;
}

std::optional<double> soft_rate(const Report& report, const Measurement& m) {
  for (const Measurement& other : report.measurements)
    if (other.driver == "soft" && other.algorithm == m.algorithm && other.size == m.size)
      return other.rate(report.cputime);
  return std::nullopt;
}

void print_progress(const Measurement& m, bool with_driver, bool machine_readable, bool cputime) {
  const std::string name =
      std::string(m.algorithm->name) + (with_driver ? " (" + m.driver + ")" : "");
  if (machine_readable) {
    fmt::print(stderr, "+DT:{}:{:g}:{}\n", name, m.seconds_asked, m.size);
    fmt::print(stderr, "+R:{}:{}:{:f}\n", m.operations, name, m.seconds(cputime));
    return;
  }
  fmt::print(stderr, "Doing {} for {:g}s on {} size blocks: {} {}'s in {:.2f}s{}\n", name,
             m.seconds_asked, m.size, m.operations, name, m.seconds(cputime),
             m.interrupted ? " (interrupted)" : "");
}

}  // namespace cryptoaccel::tools::speed
