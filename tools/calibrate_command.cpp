// `cryptoaccel calibrate`: measures every driver x algorithm x size and saves
// the profile the dispatcher uses to choose the fastest path per request.
#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "command.hpp"
#include "cryptoaccel/cryptoaccel.hpp"
#include "output_file.hpp"
#include "provider_check.hpp"
#include "text_table.hpp"

namespace cryptoaccel::tools {
namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};

// SIGINT, SIGTERM and SIGHUP stop the measuring where it is: nothing is
// written and the draft of --machine is removed.
extern "C" void on_calibrate_interrupt(int signal) {
  g_signal.store(signal);
  g_interrupted.store(true);
}

struct CalibrateOptions {
  std::string output;
  double seconds = 0.3;
  bool seconds_given = false;  // else --machine measures for 0.03 s
  unsigned rounds = 3;
  std::vector<std::string> drivers;
  std::vector<std::string> algorithms;
  std::string sizes_text;
  bool quiet = false;
  bool machine = false;
  bool if_stale = false;
  std::string provider;
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

// The algorithms on which the dispatcher has a choice to make: those that
// two or more of the automatic drivers offer.
std::vector<AlgorithmId> contested_algorithms(const std::vector<std::string>& only) {
  std::map<AlgorithmId, int> offered;
  for (const DriverInfo& d : Framework::global().drivers()) {
    if (!d.traits.automatic) continue;
    if (!only.empty() && std::find(only.begin(), only.end(), d.name) == only.end()) continue;
    std::set<AlgorithmId> mine;
    for (const Capability& c : d.capabilities) mine.insert(c.algorithm);
    for (const AlgorithmId id : mine) ++offered[id];
  }
  std::vector<AlgorithmId> out;
  for (const auto& [id, count] : offered)
    if (count > 1 && algorithm(id).kind != AlgorithmKind::public_key) out.push_back(id);
  return out;
}

// A file in the temporary folder, removed when this goes.
class TemporaryFile {
 public:
  TemporaryFile() {
    const char* folder = std::getenv("TMPDIR");
    path_ = std::string(folder != nullptr && *folder == '/' ? folder : "/tmp") +
            "/cryptoaccel-profile.XXXXXX";
    const int fd = ::mkostemp(path_.data(), O_CLOEXEC);
    if (fd < 0) throw InvalidArgument("cannot create a temporary file in " + path_);
    ::close(fd);
  }
  ~TemporaryFile() { ::unlink(path_.c_str()); }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// --machine's second step (provider_check.hpp): which algorithms the
// provider leaves with OpenSSL's own implementation.
void check_through_provider(Profile& profile, const std::vector<AlgorithmId>& measured,
                            double seconds, const std::string& module, const CalibrateOptions& o) {
  TemporaryFile draft;
  save_profile(profile, draft.path());
  Framework with_profile(FrameworkOptions{.profile_path = draft.path()});
  std::vector<AlgorithmId> leaving;
  for (const AlgorithmId id : measured)
    if (sole_driver(algorithm(id), SessionOptions{.framework = &with_profile}) != "soft")
      leaving.push_back(id);
  ProviderCheckOptions check;
  check.module = module;
  check.profile_path = draft.path();
  check.sizes = {16, 64, 256, 1024, 4096, 16384};
  check.seconds = std::min(seconds * 3, 0.3);
  check.rounds = o.rounds;
  if (!o.quiet) check.progress = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  check.interrupted = [] { return g_interrupted.load(); };
  for (const ProviderCheck& c : check_provider(leaving, check))
    if (c.direct) profile.provider_direct.push_back(c.algorithm);
}

int run(const CalibrateOptions& o) {
  CalibrationOptions options;
  options.seconds = o.machine && !o.seconds_given ? 0.03 : o.seconds;
  if (!(options.seconds > 0) || options.seconds > 60)
    throw InvalidArgument("--seconds must be more than 0 and at most 60");
  if (o.rounds == 0 || o.rounds > 100) throw InvalidArgument("--rounds must be 1 to 100");
  options.rounds = o.rounds;
  options.drivers = o.drivers;
  for (const std::string& name : o.algorithms)
    options.algorithms.push_back(algorithm_or_throw(name).id);
  if (!o.sizes_text.empty()) options.sizes = parse_sizes(o.sizes_text);
  if (o.if_stale && !o.machine) throw InvalidArgument("--if-stale goes with --machine");
  if (o.if_stale) {
    // At boot (contrib/systemd): measure again only after a change of CPU,
    // microcode, OpenSSL or drivers.
    const std::string path = o.output.empty() ? machine_profile_path() : o.output;
    try {
      const Profile current = load_profile(path);
      const std::string mismatch = profile_mismatch(current, Framework::global().drivers());
      // A profile that records no machine was not made by --machine.
      if (mismatch.empty() && !current.machine.empty()) {
        if (!o.quiet)
          fmt::print("{} fits this machine and its drivers (made {}): not measured again\n", path,
                     current.created);
        return 0;
      }
      if (!o.quiet) fmt::print(stderr, "{} is stale: {}; measuring again\n", path, mismatch);
    } catch (const Error& e) {
      if (!o.quiet) fmt::print(stderr, "{}; measuring\n", e.what());
    }
  }
  if (o.machine) {
    // Found wanting before a minute of measuring, not after: the machine's
    // profile is a regular file in a folder that exists (or is made: the
    // default place), and every user's processes read it.
    const std::filesystem::path target = o.output.empty() ? machine_profile_path() : o.output;
    std::error_code ec;
    const auto status = std::filesystem::status(target, ec);
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
      throw InvalidArgument(target.string() +
                            ": not a regular file; the machine's profile is not written there");
    if (!o.output.empty() && target.has_parent_path() &&
        !std::filesystem::is_directory(target.parent_path(), ec))
      throw InvalidArgument("cannot write " + target.string() + ": no folder " +
                            target.parent_path().string());
    ::umask(::umask(0) & ~mode_t{0044});
  }
  const std::string module = o.provider.empty() ? default_provider_module() : o.provider;
  if (o.machine && !std::filesystem::is_regular_file(module))
    throw NotFound("no provider module at " + module + " (give --provider)");
  if (o.machine && options.algorithms.empty()) {
    options.algorithms = contested_algorithms(o.drivers);
    if (options.algorithms.empty())
      throw Unsupported("no algorithm has two drivers to choose from: nothing to calibrate");
  }
  const std::string output = !o.output.empty() ? o.output
                             : o.machine       ? machine_profile_path()
                                               : default_profile_path();
  if (!o.quiet)
    options.progress = [](const Measurement& m, std::size_t done, std::size_t total) {
      fmt::print(stderr, "[{}/{}] {} {} {} B x{}{}: {}, {:.2f} ns CPU per byte\n", done, total,
                 m.driver, algorithm(m.algorithm).name, m.size, m.in_flight,
                 m.workers > 1 ? fmt::format(", {} threads", m.workers) : std::string(),
                 rate(m.bytes_per_second), m.cpu_seconds_per_byte * 1e9);
    };
  options.interrupted = [] { return g_interrupted.load(); };

  struct sigaction action {
  }, previous[3]{};
  action.sa_handler = on_calibrate_interrupt;
  sigemptyset(&action.sa_mask);
  constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
  for (int i = 0; i < 3; ++i) sigaction(kStopSignals[i], &action, &previous[i]);
  Profile profile = calibrate(Framework::global(), options);
  if (o.machine && !g_interrupted && !profile.measurements.empty())
    check_through_provider(profile, options.algorithms, options.seconds, module, o);
  for (int i = 0; i < 3; ++i) sigaction(kStopSignals[i], &previous[i], nullptr);
  if (g_interrupted) {
    fmt::print(stderr, "cryptoaccel calibrate: interrupted; no profile written\n");
    return 128 + g_signal.load();
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
  if (o.machine) {
    std::string direct;
    for (const AlgorithmId id : profile.provider_direct)
      direct += " " + std::string(algorithm(id).name);
    fmt::print("The provider serves with OpenSSL's own implementation, measured faster:{}\n",
               direct.empty() ? " none" : direct);
  }
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
  CLI::Option* seconds = command->add_option(
      "--seconds", options->seconds,
      "seconds per measurement, split over the rounds (default 0.3; --machine: 0.03)");
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
  command->add_flag(
      "--machine", options->machine,
      "the machine's profile, for every user: only the algorithms two or more drivers offer, "
      "then each that would leave OpenSSL's own implementation measured through the provider "
      "against OpenSSL's default provider (it stays with OpenSSL's unless clearly faster); "
      "written to $CRYPTOACCEL_MACHINE_PROFILE, else /var/cache/cryptoaccel/machine-profile.json");
  command->add_flag("--if-stale", options->if_stale,
                    "with --machine: do nothing when the machine's profile still fits this CPU, "
                    "microcode, OpenSSL and drivers");
  command->add_option("--provider", options->provider,
                      "the provider module --machine loads (default: the installed cryptoaccel.so; "
                      "the build tree's for the build tree's command)");
  return [options, seconds] {
    options->seconds_given = seconds->count() > 0;
    return run(*options);
  };
}

}  // namespace cryptoaccel::tools
