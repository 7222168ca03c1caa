// JSON and CSV: every figure of the run, for scripts and spreadsheets. The
// schema is documented in docs/speed.md.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "cryptoaccel/version.hpp"
#include "report.hpp"

namespace cryptoaccel::tools::speed {

void print_json(const Report& report, std::FILE* out) {
  nlohmann::json results = nlohmann::json::array();
  for (const Measurement& m : report.measurements) {
    nlohmann::json r{{"algorithm", m.algorithm->name}, {"driver", m.driver},
                     {"served_by", m.served_by},       {"size", m.size},
                     {"workers", m.workers},           {"in_flight", m.in_flight},
                     {"operations", m.operations},     {"elapsed_s", m.elapsed},
                     {"cpu_user_s", m.cpu_user},       {"cpu_system_s", m.cpu_system},
                     {"cpu_percent", m.cpu_percent()}, {"bytes_per_second", m.rate(report.cputime)},
                     {"interrupted", m.interrupted}};
    if (m.burst_depth > 0) r["burst_depth"] = m.burst_depth;
    if (m.latency_p50_us > 0) {
      r["latency_p50_us"] = m.latency_p50_us;
      r["latency_p99_us"] = m.latency_p99_us;
    }
    if (const auto soft = soft_rate(report, m); soft && *soft > 0 && m.driver != "soft")
      r["ratio_to_soft"] = m.rate(report.cputime) / *soft;
    results.push_back(std::move(r));
  }
  const nlohmann::json doc{{"tool", "cryptoaccel speed"},
                           {"version", CRYPTOACCEL_VERSION_STRING},
                           {"rate_basis", report.cputime ? "cpu" : "elapsed"},
                           {"seconds", report.seconds},
                           {"multi", report.multi},
                           {"sizes", report.sizes},
                           {"verified", report.verify},
                           {"verification_failures", report.verification_failures},
                           {"notes", report.notes},
                           {"interrupted", report.interrupted},
                           {"results", std::move(results)}};
  fmt::print(out, "{}\n", doc.dump(2));
}

void print_csv(const Report& report, std::FILE* out) {
  fmt::print(out,
             "algorithm,driver,served_by,size,workers,operations,elapsed_s,cpu_user_s,"
             "cpu_system_s,cpu_percent,bytes_per_second,ratio_to_soft\n");
  for (const Measurement& m : report.measurements) {
    const auto soft = soft_rate(report, m);
    const std::string ratio = soft && *soft > 0 && m.driver != "soft"
                                  ? fmt::format("{:.4f}", m.rate(report.cputime) / *soft)
                                  : "";
    fmt::print(out, "{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.1f},{:.0f},{}\n", m.algorithm->name,
               m.driver, m.served_by, m.size, m.workers, m.operations, m.elapsed, m.cpu_user,
               m.cpu_system, m.cpu_percent(), m.rate(report.cputime), ratio);
  }
}

}  // namespace cryptoaccel::tools::speed
