// `cryptoaccel rng`: random bytes from one source, through its health tests,
// to stdout or a file. `-o FILE` writes FILE as `> FILE` would, a regular
// file whole or not at all (output_file.hpp). Bytes already written to
// stdout, a device or a FIFO when the source fails stay written (a pipe
// cannot take them back); the exit status is then 1.
#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <vector>

#include "command.hpp"
#include "cryptoaccel/random.hpp"
#include "output_file.hpp"

namespace cryptoaccel::tools {
namespace {

struct RngOptions {
  std::string source = "best";
  std::string count;  // -n: bytes, with K/M/G (1024-based)
  std::string output;
  bool force = false;
  bool verbose = false;
};

// The largest -n: beyond this a mistyped size fills a disk.
constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 40;

std::uint64_t parse_count(const std::string& text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [rest, error] = std::from_chars(text.data(), end, value);
  std::uint64_t scale = 1;
  const std::string_view suffix(rest, static_cast<std::size_t>(end - rest));
  if (suffix == "K" || suffix == "k") scale = 1 << 10;
  if (suffix == "M") scale = 1 << 20;
  if (suffix == "G") scale = 1 << 30;
  const bool suffix_ok = suffix.empty() || scale != 1;
  if (error != std::errc() || rest == text.data() || !suffix_ok || value > kMaxBytes / scale ||
      value == 0)
    throw InvalidArgument("-n: bad byte count '" + text +
                          "' (want a whole number of bytes, 1 or more, optionally with K, M or G; "
                          "at most 1T)");
  return value * scale;
}

void write_all(int fd, const std::uint8_t* data, std::size_t size, const std::string& where) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw DriverFailure("writing " + where + ": " + std::strerror(errno));
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

int run_rng(const RngOptions& o) {
  const std::uint64_t total = parse_count(o.count);
  if (o.output.empty() && isatty(STDOUT_FILENO) && !o.force) {
    fmt::print(stderr,
               "cryptoaccel rng: refusing to write binary data to a terminal (use -o FILE, a "
               "pipe, or --force)\n");
    return 2;
  }
  std::unique_ptr<RandomSource> source = open_random_source(o.source);
  std::unique_ptr<OutputFile> file;
  if (!o.output.empty()) file = std::make_unique<OutputFile>(o.output);

  std::vector<std::uint8_t> buffer(64 * 1024);
  std::uint64_t done = 0;
  while (done < total) {
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), total - done));
    const std::size_t got = source->read(std::span(buffer).first(want));
    if (got == 0)
      throw DriverFailure(source->info().name + " ended after " + std::to_string(done) +
                          " of the " + std::to_string(total) + " bytes asked for");
    if (file)
      file->write(buffer.data(), got);
    else
      write_all(STDOUT_FILENO, buffer.data(), got, "standard output");
    done += got;
  }
  if (file) file->commit();
  if (o.verbose) {
    const RandomSourceStats s = source->stats();
    const HealthParameters& h = source->health();
    fmt::print(stderr,
               "cryptoaccel rng: {} bytes from {} ({}); health tests passed on {} bytes "
               "(repetition count cutoff {}, adaptive proportion cutoff {} per {} bytes, "
               "claimed {} bits per byte)\n",
               done, source->info().name, source->info().description, s.tested_bytes, h.rct_cutoff,
               h.apt_cutoff, h.apt_window, h.entropy_per_sample);
  }
  return 0;
}

}  // namespace

Action add_rng_command(CLI::App& app) {
  auto options = std::make_shared<RngOptions>();
  CLI::App* command = app.add_subcommand(
      "rng",
      "Write random bytes from one source, through its SP 800-90B health tests, to stdout\n"
      "or a file (a regular file whole or not at all). `cryptoaccel list` shows the sources.");
  command->add_option("--source,-s", options->source,
                      "hwrng, getrandom, rdrand, rdseed, rndr, rndrrs, afalg[:ALG], file:PATH, stdin, "
                      "or best (the first of hwrng, rdseed, rdrand, rndrrs, rndr that works; the "
                      "default)");
  command->add_option("-n,--bytes", options->count, "How many bytes (K, M, G: times 1024)")
      ->required();
  command->add_option("-o,--output", options->output,
                      "Write to FILE instead of stdout, as `> FILE` would (a regular file whole or "
                      "not at all; see docs/rng.md)");
  command->add_flag("--force", options->force, "Write binary data to a terminal all the same");
  command->add_flag("-v,--verbose", options->verbose,
                    "Say on stderr which source served and what its health tests checked");
  return [options] { return run_rng(*options); };
}

}  // namespace cryptoaccel::tools
