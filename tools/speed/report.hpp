// The results of a `cryptoaccel speed` run and the formats that print them.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "measure.hpp"

namespace cryptoaccel::tools::speed {

struct Report {
  std::vector<Measurement> measurements;  // in the order they ran
  std::vector<std::size_t> sizes;
  double seconds = 3;
  int multi = 1;
  bool cputime = false;
  bool decrypt = false;
  bool verify = true;
  bool interrupted = false;
  std::vector<std::string> verification_failures;
  std::vector<std::string> notes;  // e.g. drivers that were not verified
};

// One line of a table: an algorithm on a driver, one measurement per size.
struct Series {
  const Algorithm* algorithm = nullptr;
  std::string driver;
  std::vector<const Measurement*> by_size;  // aligned with Report::sizes; null if not measured
};

std::vector<Series> series_of(const Report& report);

// "aes-128-cbc", or "aes-128-cbc (afalg:x)" when drivers are being compared.
std::string label(const Series& series, bool with_driver);
bool compares_drivers(const Report& report);

// The rate of the same algorithm and size on `soft`, if it was measured.
std::optional<double> soft_rate(const Report& report, const Measurement& m);

// "Doing aes-128-cbc for 3s on 16 size blocks: ..." (stderr, as openssl speed).
// With `cputime` the time shown is CPU time, as openssl speed without -elapsed.
void print_progress(const Measurement& m, bool with_driver, bool machine_readable, bool cputime);

void print_openssl(const Report& report, std::FILE* out, bool machine_readable);
void print_cryptotest(const Report& report, std::FILE* out);
void print_tcrypt(const Report& report, std::FILE* out);
void print_json(const Report& report, std::FILE* out);
void print_csv(const Report& report, std::FILE* out);

// Writes FILE.svg or FILE.png through gnuplot; throws Error on failure.
void write_plot(const Report& report, const std::string& path);

}  // namespace cryptoaccel::tools::speed
