// `cryptoaccel rngtest` options: rng-tools' rngtest's, parsed the way its
// argp parser takes them (-c N, -cN, --blockcount=N, abbreviations; numbers
// as C's %i reads them: 0x10 and 010 too), plus --source.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cryptoaccel::tools::rngtest {

// rngtest's exit statuses.
inline constexpr int kExitSuccess = 0;
inline constexpr int kExitFail = 1;  // a block failed, none passed, or too little input
inline constexpr int kExitUsage = 10;
inline constexpr int kExitIoError = 11;
inline constexpr int kExitOsError = 12;

struct Options {
  int blockcount = 0;               // -c: stop after n blocks (0: at end of input)
  int blockstats = 0;               // -b: statistics every n blocks
  std::uint64_t timedstats_us = 0;  // -t: statistics every n seconds
  bool pipe = false;                // -p: echo passing blocks to stdout, quietly
  std::string source;               // --source: one of ours instead of stdin
};

// Parses `args` (the words after "rngtest"). Returns -1 when the caller
// should run with `options`, or an exit status: 0 after --help, --usage or
// --version (printed here), kExitUsage after a usage error (explained on
// stderr here).
int parse(const std::vector<std::string>& args, Options& options);

}  // namespace cryptoaccel::tools::rngtest
