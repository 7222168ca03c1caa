#include "speed_options.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "cryptoaccel/error.hpp"

namespace cryptoaccel::tools::speed {
namespace {

// The largest buffer one request may take here: beyond this a benchmark
// measures the memory system, not the driver.
constexpr std::size_t kMaxSize = std::size_t{64} << 20;

std::size_t parse_size(std::string_view text) {
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value == 0 || value > kMaxSize)
    throw InvalidArgument("bad size '" + std::string(text) +
                          "' (want a whole number of bytes, 1 to " + std::to_string(kMaxSize) +
                          ")");
  return value;
}

}  // namespace

void add_options(CLI::App& command, SpeedOptions& o) {
  command.add_option("algorithm", o.positional, "Algorithms to measure (default: all)");
  command.add_option("--evp", o.evp, "An algorithm to measure, as openssl speed -evp (repeatable)");
  command.add_option("--hmac", o.hmac, "HMAC with this digest, as openssl speed -hmac (sha256)");
  command
      .add_option("--seconds", o.seconds, "Seconds per measurement (default 3; fractions allowed)")
      ->check(CLI::Range(0.001, 3600.0));
  o.bytes_option =
      command.add_option("--bytes", o.bytes, "Measure this one buffer size instead of --sizes");
  command.add_option("--sizes", o.sizes_text,
                     "Comma-separated buffer sizes in bytes (default 16,64,256,1024,8192,16384)");
  command.add_option("--multi", o.multi, "Run N workers in parallel and add them up")
      ->check(CLI::Range(1, 1024));
  command
      .add_option("--in-flight", o.in_flight,
                  "Requests each worker keeps in flight: batches of N one-shot requests through "
                  "a session's batch API (default 1: one streamed request at a time)")
      ->check(CLI::Range(1, 256));
  command.add_flag("--elapsed", o.elapsed,
                   "Rates per wall-clock second (the default; for compatibility)");
  command.add_flag("--cputime", o.cputime,
                   "Rates per CPU second (OpenSSL's old default; misleading for offload)");
  command.add_flag("--mr", o.machine_readable, "Machine-readable output, as openssl speed -mr");
  command.add_flag("--decrypt", o.decrypt, "Measure decryption (ciphers and AEADs)");
  command.add_option(
      "--driver", o.driver,
      "auto (the dispatcher chooses), all (every driver side by side), or a driver name");
  command.add_option("--format", o.format_text, "openssl, cryptotest, tcrypt, json or csv");
  command.add_option("--plot", o.plot,
                     "Write a throughput plot (FILE.svg or FILE.png) with gnuplot");
  command.add_flag("--no-verify", o.no_verify, "Do not check each driver's output against soft");
}

// Each worker holds `in_flight` requests of the largest size, input and
// output, and about a megabyte of its own (stack, sessions): a run this
// machine's available memory cannot hold is refused before it starts, with
// the number of workers it can hold, rather than killed by the kernel.
void check_memory(const SpeedOptions& o) {
  constexpr double kWorkerOverhead = 2.0 * 1024 * 1024;
  const std::size_t largest = *std::max_element(o.sizes.begin(), o.sizes.end());
  const double per_worker = 2.0 * static_cast<double>(largest) * o.in_flight + kWorkerOverhead;
  const double needed = per_worker * o.multi;
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double available_kib = -1;
  for (double value = 0; meminfo >> key >> value;) {
    if (key == "MemAvailable:") available_kib = value;
    meminfo.ignore(64, '\n');
  }
  if (available_kib < 0) return;  // no figure to check against
  const double available = available_kib * 1024;
  if (needed <= available) return;
  const auto fit = static_cast<long>(available / per_worker);
  throw InvalidArgument(fmt::format(
      "--multi {} with --in-flight {} at {} bytes needs about {:.1f} GB; this machine has "
      "{:.1f} GB available: {}",
      o.multi, o.in_flight, largest, needed / 1e9, available / 1e9,
      fit > 0 ? fmt::format("at most --multi {}", fit) : std::string("lower --in-flight")));
}

void validate(SpeedOptions& o) {
  std::vector<std::string> names = o.evp;
  names.insert(names.end(), o.positional.begin(), o.positional.end());
  for (const std::string& digest : o.hmac) names.push_back("hmac(" + digest + ")");
  o.algorithms.clear();
  for (const std::string& name : names) {
    const Algorithm& a = algorithm_or_throw(name);
    if (std::find(o.algorithms.begin(), o.algorithms.end(), &a) == o.algorithms.end())
      o.algorithms.push_back(&a);
  }
  if (o.algorithms.empty())
    for (const Algorithm& a : algorithms())
      if (a.kind != AlgorithmKind::public_key) o.algorithms.push_back(&a);

  o.sizes.clear();
  if (o.bytes_option != nullptr && o.bytes_option->count() > 0) {
    o.sizes.push_back(parse_size(std::to_string(o.bytes)));
  } else {
    std::string_view rest = o.sizes_text;
    while (true) {
      const std::size_t comma = rest.find(',');
      const std::size_t size = parse_size(rest.substr(0, comma));
      // A size listed twice is measured once.
      if (std::find(o.sizes.begin(), o.sizes.end(), size) == o.sizes.end()) o.sizes.push_back(size);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  for (const Algorithm* a : o.algorithms) {
    for (std::size_t size : o.sizes) {
      if ((size & (a->input_multiple - 1)) != 0 || size < a->min_input)
        throw InvalidArgument(
            std::string(a->name) + " cannot take " + std::to_string(size) + "-byte requests (" +
            (a->min_input ? "at least " + std::to_string(a->min_input) + " bytes"
                          : "whole " + std::to_string(a->input_multiple) + "-byte blocks") +
            ")");
    }
  }

  check_memory(o);

  static const std::pair<std::string_view, Format> kFormats[] = {{"openssl", Format::openssl},
                                                                 {"cryptotest", Format::cryptotest},
                                                                 {"tcrypt", Format::tcrypt},
                                                                 {"json", Format::json},
                                                                 {"csv", Format::csv}};
  bool known = false;
  for (const auto& [name, format] : kFormats)
    if (o.format_text == name) o.format = format, known = true;
  if (!known)
    throw InvalidArgument("unknown format '" + o.format_text +
                          "' (expected openssl, cryptotest, tcrypt, json or csv)");
  if (!o.plot.empty() && !o.plot.ends_with(".svg") && !o.plot.ends_with(".png"))
    throw InvalidArgument("--plot wants a file name ending in .svg or .png, not '" + o.plot + "'");
  if (!o.plot.empty()) {
    // Refuse now rather than after minutes of measuring.
    const std::filesystem::path dir = std::filesystem::absolute(o.plot).parent_path();
    if (access(dir.c_str(), W_OK) != 0)
      throw InvalidArgument("--plot: cannot write in '" + dir.string() + "'");
  }
  if (o.cputime && o.elapsed)
    throw InvalidArgument("-elapsed and -cputime contradict each other: choose one");
}

std::vector<std::string> openssl_style_arguments(int argc, char** argv) {
  static constexpr std::string_view kLong[] = {
      "-evp", "-hmac", "-seconds", "-bytes", "-multi", "-elapsed", "-cputime", "-mr", "-decrypt"};
  std::vector<std::string> out;
  for (int i = 0; i < argc; ++i) {
    std::string word = argv[i];
    for (std::string_view name : kLong)
      if (word == name) word = "-" + word;
    out.push_back(std::move(word));
  }
  return out;
}

}  // namespace cryptoaccel::tools::speed
