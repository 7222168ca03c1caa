// `cryptoaccel calibrate`: measures every driver x algorithm x size and saves
// the profile the dispatcher uses to choose the fastest path per request.
#include <fmt/core.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>

#include "command.hpp"
#include "cryptoaccel/cryptoaccel.hpp"
#include "output_file.hpp"
#include "text_table.hpp"

namespace cryptoaccel::tools {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_calibrate_interrupt(int) {
  g_interrupted.store(true);
}

struct CalibrateOptions {
  std::string output;
  double seconds = 0.3;
  unsigned rounds = 3;
  std::vector<std::string> drivers;
  std::vector<std::string> algorithms;
  std::string sizes_text;
  bool quiet = false;
};

std::vector<std::size_t> parse_sizes(const std::string& text) {
  std::vector<std::size_t> sizes;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string word = text.substr(start, end - start);
    std::size_t used = 0;
    unsigned long long value = 0;
    try {
      value = std::stoull(word, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (word.empty() || used != word.size() || value == 0 || value > 16 * 1024 * 1024)
      throw InvalidArgument("--sizes: '" + word + "' is not a size from 1 to 16777216 bytes");
    sizes.push_back(static_cast<std::size_t>(value));
    start = end + 1;
  }
  return sizes;
}

std::string rate(double bytes_per_second) {
  return fmt::format("{:.1f} MB/s", bytes_per_second / 1e6);
}

// The fastest driver per algorithm and size, one request at a time: what
// the `fastest` policy will choose.
void print_choices(const Profile& profile) {
  std::map<std::pair<std::size_t, std::size_t>, const Measurement*> best;
  std::vector<std::size_t> sizes;
  for (const Measurement& m : profile.measurements) {
    if (m.in_flight != 1 || m.workers != 1) continue;
    auto& slot = best[{index_of(m.algorithm), m.size}];
    if (slot == nullptr || m.bytes_per_second > slot->bytes_per_second) slot = &m;
    if (std::find(sizes.begin(), sizes.end(), m.size) == sizes.end()) sizes.push_back(m.size);
  }
  std::sort(sizes.begin(), sizes.end());
  std::vector<std::string> heading{"ALGORITHM"};
  for (std::size_t s : sizes) heading.push_back(std::to_string(s) + " B");
  TextTable table(heading);
  for (const Algorithm& a : algorithms()) {
    std::vector<std::string> row{std::string(a.name)};
    bool any = false;
    for (std::size_t s : sizes) {
      const auto it = best.find({index_of(a.id), s});
      row.push_back(it == best.end() ? "-" : it->second->driver);
      any |= it != best.end();
    }
    if (any) table.add(row);
  }
  fmt::print("Fastest driver per size, one request at a time (the `fastest` policy's choice):\n");
  table.print(stdout);
}

int run(const CalibrateOptions& o) {
  if (!(o.seconds > 0) || o.seconds > 60)
    throw InvalidArgument("--seconds must be more than 0 and at most 60");
  CalibrationOptions options;
  options.seconds = o.seconds;
  if (o.rounds == 0 || o.rounds > 100) throw InvalidArgument("--rounds must be 1 to 100");
  options.rounds = o.rounds;
  options.drivers = o.drivers;
  for (const std::string& name : o.algorithms)
    options.algorithms.push_back(algorithm_or_throw(name).id);
  if (!o.sizes_text.empty()) options.sizes = parse_sizes(o.sizes_text);
  const std::string output = o.output.empty() ? default_profile_path() : o.output;
  if (!o.quiet)
    options.progress = [](const Measurement& m, std::size_t done, std::size_t total) {
      fmt::print(stderr, "[{}/{}] {} {} {} B x{}{}: {}, {:.2f} ns CPU per byte\n", done, total,
                 m.driver, algorithm(m.algorithm).name, m.size, m.in_flight,
                 m.workers > 1 ? fmt::format(", {} threads", m.workers) : std::string(),
                 rate(m.bytes_per_second), m.cpu_seconds_per_byte * 1e9);
    };
  options.interrupted = [] { return g_interrupted.load(); };

  struct sigaction action {
  }, previous{};
  action.sa_handler = on_calibrate_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previous);
  const Profile profile = calibrate(Framework::global(), options);
  sigaction(SIGINT, &previous, nullptr);
  if (g_interrupted) {
    fmt::print(stderr, "cryptoaccel calibrate: interrupted; no profile written\n");
    return 130;
  }
  if (profile.measurements.empty())
    throw Unsupported("nothing to measure: no driver runs the algorithms and sizes asked for");
  if (output == "-") {
    fmt::print("{}", to_json(profile));
    return 0;
  }
  if (o.output.empty()) {
    // The default place: its folder is created, as save_profile does.
    std::error_code ec;
    const std::filesystem::path folder = std::filesystem::path(output).parent_path();
    if (!folder.empty()) std::filesystem::create_directories(folder, ec);
    if (ec) throw InvalidArgument("cannot create " + folder.string() + ": " + ec.message());
  }
  {
    OutputFile file(output);
    const std::string text = to_json(profile);
    file.write(text.data(), text.size());
    file.commit();
  }
  print_choices(profile);
  fmt::print("\n{} measurements written to {}\n", profile.measurements.size(), output);
  return 0;
}

}  // namespace

Action add_calibrate_command(CLI::App& app) {
  auto options = std::make_shared<CalibrateOptions>();
  CLI::App* command = app.add_subcommand(
      "calibrate",
      "Measure every driver, algorithm and request size and save the dispatch profile.\n"
      "The dispatcher then chooses the fastest driver for each request's size (or, under\n"
      "the offload policy, hardware where it reaches a share of software). See docs/dispatch.md.");
  command->add_option("-o,--output", options->output,
                      "where to write the profile, as `> FILE` would (a regular file whole or not "
                      "at all); - for stdout (default: $CRYPTOACCEL_PROFILE, else "
                      "~/.cache/cryptoaccel/profile.json, its folder created)");
  command->add_option("--seconds", options->seconds,
                      "seconds per measurement, split over the rounds (default 0.3)");
  command->add_option("--rounds", options->rounds,
                      "interleaved rounds of every measurement, the fastest kept (default 3)");
  command->add_option("--driver", options->drivers,
                      "measure only this driver (repeatable; default: every automatic driver)");
  command->add_option("--algorithms", options->algorithms, "measure only these algorithms")
      ->delimiter(',');
  command->add_option("--sizes", options->sizes_text,
                      "request sizes in bytes, comma-separated (default 16,64,256,1024,4096,"
                      "16384,65536: the dispatcher's size buckets)");
  command->add_flag("-q,--quiet", options->quiet, "no progress lines on stderr");
  return [options] { return run(*options); };
}

}  // namespace cryptoaccel::tools
