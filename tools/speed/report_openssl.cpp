// The openssl speed table (1000s of bytes per second, "%11.2fk" columns),
// followed by what openssl speed never showed: CPU time and CPU share per
// figure, and the ratio of each driver to soft.
#include <fmt/core.h>

#include <algorithm>

#include "report.hpp"

namespace cryptoaccel::tools::speed {
namespace {

std::size_t label_width(const std::vector<Series>& all, bool with_driver) {
  std::size_t width = 13;  // openssl's own minimum
  for (const Series& s : all) width = std::max(width, label(s, with_driver).size() + 1);
  return width;
}

void print_header(std::FILE* out, const Report& report, std::size_t width) {
  // As openssl speed: a 13-character cell per size, right-aligned with the
  // " %11.2fk" rate cells below it.
  fmt::print(out, "{:<{}}", "type", width);
  for (std::size_t size : report.sizes) fmt::print(out, "{:>7} bytes", size);
  fmt::print(out, "\n");
}

void print_machine_readable(const Report& report, std::FILE* out, bool with_driver) {
  fmt::print(out, "+H");
  for (std::size_t size : report.sizes) fmt::print(out, ":{}", size);
  fmt::print(out, "\n");
  int index = 0;
  for (const Series& s : series_of(report)) {
    fmt::print(out, "+F:{}:{}", index, label(s, with_driver));
    for (const Measurement* m : s.by_size)
      fmt::print(out, ":{:.2f}", m ? m->rate(report.cputime) : 0.0);
    fmt::print(out, "\n+C:{}:{}", index, label(s, with_driver));
    for (const Measurement* m : s.by_size)
      fmt::print(out, ":{:.3f}:{:.1f}", m ? m->cpu_seconds() : 0.0, m ? m->cpu_percent() : 0.0);
    fmt::print(out, "\n");
    ++index;
  }
}

// "3.2", "41", "1234": three significant figures at most, to fit a column.
std::string short_microseconds(double us) {
  return us < 10 ? fmt::format("{:.1f}", us) : fmt::format("{:.0f}", us);
}

}  // namespace

void print_openssl(const Report& report, std::FILE* out, bool machine_readable) {
  const bool with_driver = compares_drivers(report);
  if (machine_readable) {
    print_machine_readable(report, out, with_driver);
    return;
  }
  const auto all = series_of(report);
  const std::size_t width = label_width(all, with_driver);
  fmt::print(out, "The 'numbers' are in 1000s of bytes per second processed{}.\n",
             report.cputime ? " per CPU second (-cputime: misleading for offload)"
                            : " per second of elapsed time");
  print_header(out, report, width);
  for (const Series& s : all) {
    fmt::print(out, "{:<{}}", label(s, with_driver), width);
    for (const Measurement* m : s.by_size) {
      if (m)
        fmt::print(out, " {:11.2f}k", m->rate(report.cputime) / 1e3);
      else
        fmt::print(out, " {:>12}", "-");
    }
    fmt::print(out, "\n");
  }

  fmt::print(out, "\nCPU seconds (user+system) and CPU % of elapsed time{}:\n",
             report.multi > 1 ? fmt::format(" ({} workers; 100% = one core)", report.multi) : "");
  print_header(out, report, width);
  for (const Series& s : all) {
    fmt::print(out, "{:<{}}", label(s, with_driver), width);
    for (const Measurement* m : s.by_size) {
      if (m)
        fmt::print(out, " {:>12}",
                   fmt::format("{:.2f}s {:.0f}%", m->cpu_seconds(), m->cpu_percent()));
      else
        fmt::print(out, " {:>12}", "-");
    }
    fmt::print(out, "\n");
  }

  // With requests in flight: the depth each driver reached and what waiting
  // in a batch costs a request.
  const bool in_flight = std::any_of(report.measurements.begin(), report.measurements.end(),
                                     [](const Measurement& m) { return m.latency_p50_us > 0; });
  if (in_flight) {
    fmt::print(out,
               "\nRequests in flight: requests per burst at the driver (- where it runs none "
               "together) and each request's latency, median/p99 in microseconds:\n");
    print_header(out, report, width);
    for (const Series& s : all) {
      fmt::print(out, "{:<{}}", label(s, with_driver), width);
      for (const Measurement* m : s.by_size) {
        if (m && m->latency_p50_us > 0)
          fmt::print(out, " {:>12}",
                     fmt::format("{} {}/{}",
                                 m->burst_depth > 0 ? fmt::format("{:.1f}", m->burst_depth) : "-",
                                 short_microseconds(m->latency_p50_us),
                                 short_microseconds(m->latency_p99_us)));
        else
          fmt::print(out, " {:>12}", "-");
      }
      fmt::print(out, "\n");
    }
  }

  // Ratios only where soft was measured for the same algorithm.
  const auto has_soft = [&](const Series& s) {
    return std::any_of(all.begin(), all.end(), [&](const Series& o) {
      return o.algorithm == s.algorithm && o.driver == "soft";
    });
  };
  bool any_ratio = false;
  for (const Series& s : all) any_ratio |= s.driver != "soft" && has_soft(s);
  if (!any_ratio) return;
  fmt::print(out, "\nRatio to soft (higher is faster):\n");
  print_header(out, report, width);
  for (const Series& s : all) {
    if (s.driver == "soft" || !has_soft(s)) continue;
    fmt::print(out, "{:<{}}", label(s, with_driver), width);
    for (const Measurement* m : s.by_size) {
      const auto soft = m ? soft_rate(report, *m) : std::nullopt;
      if (m && soft && *soft > 0)
        fmt::print(out, " {:>11.2f}x", m->rate(report.cputime) / *soft);
      else
        fmt::print(out, " {:>12}", "-");
    }
    fmt::print(out, "\n");
  }
}

}  // namespace cryptoaccel::tools::speed
