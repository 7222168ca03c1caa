// What the tests of `cryptoaccel speed` share: running the command (stdout
// and stderr apart, in a scratch folder) and reading its openssl table back.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include "test_util.hpp"

namespace speed_cli {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// ---------------------------------------------------------------------------
// Running the command

struct SpeedRun {
  int status = -1;  // exit status, or -1 if it did not exit normally
  std::string out;  // stdout
  std::string err;  // stderr
};

std::string read_file(const fs::path& path);

// A scratch directory, removed with everything in it when the test ends.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "speed_cli_test_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
};

// `cryptoaccel speed ARGS` through the shell: stdout through a pipe, stderr
// into a scratch file, so that the two can be parsed separately.
SpeedRun speed(const std::string& args);

std::vector<std::string> lines_of(const std::string& text);

std::vector<std::string> words_of(const std::string& line);

bool near(double actual, double expected, double relative);

// ---------------------------------------------------------------------------
// The openssl format

struct TableRow {
  std::string label;
  std::vector<std::optional<double>> cells;  // nullopt for "-" (not measured)
};

struct OpensslTables {
  std::string heading;  // "The 'numbers' are in 1000s of bytes per second processed..."
  std::vector<std::size_t> sizes;
  std::vector<TableRow> rates;        // in 1000s of bytes per second
  std::vector<TableRow> cpu_seconds;  // CPU seconds per figure
  std::vector<TableRow> cpu_percent;  // CPU % of elapsed time, same rows
  std::string cpu_heading;
  bool has_ratio_table = false;
};

// Splits "label cell cell ..." from the right: the label may hold spaces
// ("aes-128-cbc (soft)"), the cells do not (a CPU cell is "0.05s 100%": two
// words). `cell_words` is 1 for the rate table, 2 for the CPU table.
bool split_row(const std::string& line, std::size_t columns, std::size_t cell_words,
               std::string& label, std::vector<std::vector<std::string>>& cells);

// Parses the whole openssl-format stdout; fails the test on any line that is
// not where the format puts it.
OpensslTables parse_openssl(const std::string& out);

struct DoingLine {
  std::string name;
  double seconds_asked = 0;
  std::size_t size = 0;
  std::uint64_t operations = 0;
  double seconds = 0;  // printed with two decimals
  bool interrupted = false;
};

// "Doing aes-128-cbc for 0.05s on 16 size blocks: 1178388 aes-128-cbc's in 0.05s"
std::vector<DoingLine> parse_doing(const std::string& err);

const TableRow* row_named(const std::vector<TableRow>& rows, const std::string& label);

// ---------------------------------------------------------------------------
// A JSON result (--format json), checked: shared by the JSON and the run tests

inline const std::set<std::string> kResultFields{
    "algorithm",        "driver",      "served_by",  "size",         "workers",
    "operations",       "elapsed_s",   "cpu_user_s", "cpu_system_s", "cpu_percent",
    "bytes_per_second", "interrupted", "in_flight"};
// Present only where they apply (docs/speed.md).
inline const std::set<std::string> kOptionalResultFields{"ratio_to_soft", "burst_depth",
                                                         "latency_p50_us", "latency_p99_us"};

// "algorithm/driver/served_by/size/workers": what a result is about.
std::string key_of(const Json& m);

// Checks one JSON result: every field present with its type, and the figures
// consistent with each other. Returns key_of(m).
std::string check_result(const Json& m, double seconds, int workers);

}  // namespace speed_cli
