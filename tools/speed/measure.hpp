// One measurement: an algorithm on a driver at one buffer size, for a time,
// with N workers; wall-clock and CPU time both recorded.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "cryptoaccel/algorithm.hpp"
#include "cryptoaccel/session.hpp"

namespace cryptoaccel::tools::speed {

struct Measurement {
  const Algorithm* algorithm = nullptr;
  std::string driver;     // what was asked: "auto" or a driver name
  std::string served_by;  // the driver that served, or each with its share
  std::size_t size = 0;
  int workers = 1;
  int in_flight = 1;
  std::uint64_t operations = 0;  // summed over workers
  double seconds_asked = 0;
  double elapsed = 0;   // wall clock
  double cpu_user = 0;  // the whole process, all workers
  double cpu_system = 0;
  bool interrupted = false;  // cut short by Ctrl-C
  // With requests in flight: the requests per burst where the serving
  // driver counts bursts (mb; 0 elsewhere), and each request's latency from
  // submission to completion, median and 99th percentile (0: not measured).
  double burst_depth = 0;
  double latency_p50_us = 0;
  double latency_p99_us = 0;

  double bytes() const { return static_cast<double>(operations) * static_cast<double>(size); }
  double cpu_seconds() const { return cpu_user + cpu_system; }
  // CPU time as a share of elapsed time: 100% is one core busy.
  double cpu_percent() const { return elapsed > 0 ? 100.0 * cpu_seconds() / elapsed : 0; }
  // The time rates are divided by: elapsed, or CPU time with `cputime`.
  double seconds(bool cputime) const { return cputime ? cpu_seconds() : elapsed; }
  // Bytes per second of that time.
  double rate(bool cputime) const {
    const double t = seconds(cputime);
    return t > 0 ? bytes() / t : 0;
  }
};

struct MeasureRequest {
  const Algorithm* algorithm = nullptr;
  DriverPreference driver;  // empty ("auto"): the dispatcher chooses
  std::size_t size = 0;
  double seconds = 3;
  int workers = 1;
  int in_flight = 1;  // >1: batches of this many through a session's batch API per worker
  bool decrypt = false;
};

// Runs the measurement; stops early (interrupted = true) when `interrupt`
// becomes true. Throws cryptoaccel::Error when the driver fails.
Measurement measure(const MeasureRequest& request, const std::atomic<bool>& interrupt);

}  // namespace cryptoaccel::tools::speed
