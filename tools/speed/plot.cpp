// Throughput against buffer size through gnuplot: log scales, one line per
// algorithm and driver, and a mark where a hardware driver overtakes soft.
#include <fmt/core.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cryptoaccel/cryptoaccel.hpp"
#include "report.hpp"

extern char** environ;

namespace cryptoaccel::tools::speed {
namespace {

namespace fs = std::filesystem;

bool is_hardware(const std::string& driver) {
  for (const DriverInfo& d : Framework::global().drivers())
    if (d.name == driver) return d.traits.kind == DriverKind::hardware;
  return false;
}

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

int run_gnuplot(const fs::path& script) {
  const std::string program = "gnuplot";
  const std::string argument = script.string();
  char* argv[] = {const_cast<char*>(program.c_str()), const_cast<char*>(argument.c_str()), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "gnuplot", nullptr, nullptr, argv, environ) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

void write_plot(const Report& report, const std::string& path) {
  const bool with_driver = compares_drivers(report);
  const auto all = series_of(report);
  const fs::path target = fs::absolute(path);
  // A fresh private directory: a predictable name in /tmp could be planted
  // with symlinks, or with a script of someone else's for gnuplot to run.
  std::string pattern = (fs::temp_directory_path() / "cryptoaccel-plot-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw Unsupported("cannot create a temporary directory for --plot: " +
                      std::string(std::strerror(errno)));
  const fs::path work = pattern;
  const fs::path data = work / "data.txt", script = work / "plot.gp";
  const fs::path partial = target.string() + ".partial";

  std::ofstream d(data);
  for (const Series& s : all) {
    for (std::size_t i = 0; i < s.by_size.size(); ++i)
      if (s.by_size[i])
        d << report.sizes[i] << ' ' << s.by_size[i]->rate(report.cputime) / 1e6 << '\n';
    d << "\n\n";  // gnuplot data blocks are separated by two blank lines
  }
  d.close();

  std::ofstream g(script);
  const bool png = target.extension() == ".png";
  g << (png ? "set terminal pngcairo size 1000,620 enhanced font 'sans,10'\n"
            : "set terminal svg size 1000,620 dynamic enhanced background rgb 'white'\n");
  g << "set output " << quoted(partial.string()) << "\n";
  g << "set title "
    << quoted(fmt::format("cryptoaccel speed: throughput by buffer size ({}{})",
                          report.cputime ? "per CPU second" : "elapsed time",
                          report.multi > 1 ? fmt::format(", {} workers", report.multi) : ""))
    << "\n";
  g << "set logscale x 2\nset logscale y 10\nset grid\nset key outside right\n";
  g << "set xlabel 'buffer size (bytes)'\nset ylabel 'MB/s (10^6 bytes per second)'\n";
  // A margin on both sides: gnuplot drops a tic that sits exactly on the edge.
  const auto [smallest, largest] = std::minmax_element(report.sizes.begin(), report.sizes.end());
  g << fmt::format("set xrange [{}:{}]\n", *smallest / 1.5, *largest * 1.5);
  g << "set xtics (";
  for (std::size_t i = 0; i < report.sizes.size(); ++i)
    g << (i ? ", " : "") << '"' << report.sizes[i] << "\" " << report.sizes[i];
  g << ")\n";

  // Crossovers: the first size at which a hardware driver reaches soft after
  // being slower (or from the start).
  int mark = 1;
  for (const Series& s : all) {
    if (!is_hardware(s.driver)) continue;
    const Series* soft = nullptr;
    for (const Series& other : all)
      if (other.algorithm == s.algorithm && other.driver == "soft") soft = &other;
    if (!soft) continue;
    for (std::size_t i = 0; i < s.by_size.size(); ++i) {
      if (!s.by_size[i] || !soft->by_size[i]) continue;
      const double hw = s.by_size[i]->rate(report.cputime),
                   sw = soft->by_size[i]->rate(report.cputime);
      if (hw < sw) continue;
      g << fmt::format(
          "set label {} 'crossover: {} at {} B' at {},{} point pt 7 ps 1.5 offset 1,1\n", mark++,
          label(s, with_driver), report.sizes[i], report.sizes[i], hw / 1e6);
      break;
    }
  }

  g << "plot ";
  for (std::size_t i = 0; i < all.size(); ++i)
    g << (i ? ", \\\n     " : "") << quoted(data.string()) << " index " << i
      << " using 1:2 with linespoints lw 2 title " << quoted(label(all[i], with_driver));
  g << "\n";
  g.close();

  const int status = run_gnuplot(script);
  std::error_code ignored;
  if (status != 0) {
    fs::remove(partial, ignored);
    fs::remove_all(work, ignored);
    throw Unsupported(status < 0
                          ? "cannot run gnuplot (install gnuplot-nox) for --plot"
                          : fmt::format("gnuplot failed (exit {}) writing {}", status, path));
  }
  fs::rename(partial, target);
  fs::remove_all(work, ignored);
}

}  // namespace cryptoaccel::tools::speed
