// The line formats of OCF's cryptotest and the kernel's tcrypt, each line
// extended with the CPU time the seeds had to measure with `time -v`.
#include <fmt/core.h>

#include "report.hpp"

namespace cryptoaccel::tools::speed {
namespace {

std::string cpu_suffix(const Measurement& m) {
  return fmt::format(", {:.3f} cpu sec, {:.0f}% cpu", m.cpu_seconds(), m.cpu_percent());
}

}  // namespace

void print_cryptotest(const Report& report, std::FILE* out) {
  const bool with_driver = compares_drivers(report);
  for (const Series& s : series_of(report)) {
    for (const Measurement* m : s.by_size) {
      if (!m) continue;
      // cryptotest's "Mb" is 2^20 bits: 425757 byte/sec prints as 3.2 Mb/sec.
      const double rate = m->rate(report.cputime);
      fmt::print(out, "{:.3f} sec, {} {} crypts, {} bytes, {:.0f} byte/sec, {:.1f} Mb/sec{}\n",
                 m->seconds(report.cputime), m->operations, label(s, with_driver), m->size, rate,
                 rate * 8 / (1024.0 * 1024.0), cpu_suffix(*m));
    }
  }
}

void print_tcrypt(const Report& report, std::FILE* out) {
  for (const Series& s : series_of(report)) {
    const Algorithm& a = *s.algorithm;
    const bool hash = a.kind == AlgorithmKind::digest || a.kind == AlgorithmKind::mac;
    const std::string served =
        s.by_size.empty() || !s.by_size[0] ? s.driver : s.by_size[0]->served_by;
    fmt::print(out, "\ntesting speed of {} ({}){}\n", a.name, served.empty() ? s.driver : served,
               hash             ? ""
               : report.decrypt ? " decryption"
                                : " encryption");
    unsigned test = 0;
    for (const Measurement* m : s.by_size) {
      if (!m) continue;
      if (hash) {
        const double t = m->seconds(report.cputime);
        const double per_second = t > 0 ? m->operations / t : 0;
        fmt::print(out,
                   "test {:3} ({:5} byte blocks,{:5} bytes per update,{:4} updates): {:6.0f} "
                   "opers/sec, {:9.0f} bytes/sec{}\n",
                   test++, m->size, m->size, 1, per_second, m->rate(report.cputime),
                   cpu_suffix(*m));
      } else {
        fmt::print(out,
                   "test {} ({} bit key, {} byte blocks): {} operations in {:.3g} seconds ({:.0f} "
                   "bytes){}\n",
                   test++, a.key_size.min * 8, m->size, m->operations, m->seconds(report.cputime),
                   m->bytes(), cpu_suffix(*m));
      }
    }
  }
}

}  // namespace cryptoaccel::tools::speed
