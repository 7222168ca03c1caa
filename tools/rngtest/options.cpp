#include "options.hpp"

#include <fmt/core.h>
#include <getopt.h>

#include <cctype>
#include <climits>
#include <cstdint>
#include <cstdlib>

#include "cryptoaccel/version.hpp"

namespace cryptoaccel::tools::rngtest {
namespace {

constexpr const char* kUsage =
    "Usage: cryptoaccel rngtest [-p] [-c n] [-b n] [-t n] [--source S] [-?V] [--blockcount=n]\n"
    "            [--blockstats=n] [--timedstats=n] [--pipe] [--help] [--usage] [--version]\n";

constexpr const char* kHelp =
    "Usage: cryptoaccel rngtest [OPTION...]\n"
    "Check the randomness of data using FIPS 140-2 RNG tests: a drop-in for rng-tools'\n"
    "rngtest, with the same options, statistics, counts and exit statuses.\n"
    "\n"
    "  -b, --blockstats=n         Dump statistics every n blocks (default: 0)\n"
    "  -c, --blockcount=n         Exit after processing n blocks (default: 0)\n"
    "  -p, --pipe                 Enable pipe mode: work silently, and echo to\n"
    "                             stdout all good blocks\n"
    "  -t, --timedstats=n         Dump statistics every n seconds (default: 0)\n"
    "      --source=S             Read the random source S instead of stdin, through\n"
    "                             its SP 800-90B health tests: hwrng, getrandom,\n"
    "                             rdrand, rdseed, rndr, rndrrs, afalg[:ALG],\n"
    "                             file:PATH, best\n"
    "  -?, --help                 Give this help list\n"
    "      --usage                Give a short usage message\n"
    "  -V, --version              Print program version\n"
    "\n"
    "FIPS tests operate on 20000-bit blocks.  Data is read from stdin.  Statistics\n"
    "and messages are sent to stderr.\n"
    "\n"
    "If no errors happen nor any blocks fail the FIPS tests, the program will return\n"
    "exit status 0.  If any blocks fail the tests, the exit status will be 1; 10 for\n"
    "usage errors, 11 for input or output errors, 12 for system errors.\n";

int usage_error(const std::string& message) {
  fmt::print(stderr,
             "rngtest: {}\nTry `cryptoaccel rngtest --help' or `cryptoaccel rngtest --usage' for "
             "more information.\n",
             message);
  return kExitUsage;
}

// A count as rngtest reads it: sscanf("%i") into an int (leading blanks,
// sign, 0x and 0 prefixes, anything after the digits ignored). As there, a
// value past 31 bits wraps as its conversion to int does (2^32 reads as 0,
// 2^32 + 1 as 1), a negative result is refused, and an empty or blank
// argument (sscanf's EOF) leaves the count as it was. False for a refusal.
bool parse_count(const char* text, long& value) {
  while (std::isspace(static_cast<unsigned char>(*text))) ++text;
  if (*text == '\0') return true;
  char* end = nullptr;
  const long read = std::strtol(text, &end, 0);
  if (end == text) return false;
  const auto as_int =
      static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<unsigned long>(read)));
  if (as_int < 0) return false;
  value = as_int;
  return true;
}

enum LongOnly { kSource = 256, kUsageOption };

}  // namespace

int parse(const std::vector<std::string>& args, Options& o) {
  std::vector<std::string> words{"rngtest"};
  for (const std::string& a : args) words.push_back(a == "-?" ? "--help" : a);
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);

  static const option kLong[] = {{"blockcount", required_argument, nullptr, 'c'},
                                 {"blockstats", required_argument, nullptr, 'b'},
                                 {"timedstats", required_argument, nullptr, 't'},
                                 {"pipe", no_argument, nullptr, 'p'},
                                 {"source", required_argument, nullptr, kSource},
                                 {"help", no_argument, nullptr, 'h'},
                                 {"usage", no_argument, nullptr, kUsageOption},
                                 {"version", no_argument, nullptr, 'V'},
                                 {nullptr, 0, nullptr, 0}};
  optind = 0;  // glibc: start over, as for a fresh program
  opterr = 0;  // our own messages
  const int argc = static_cast<int>(words.size());
  while (true) {
    const int previous = optind;
    const int c = getopt_long(argc, argv.data(), "+:c:b:t:pV", kLong, nullptr);
    if (c == -1) break;
    switch (c) {
      case 'c':
      case 'b':
      case 't': {
        long n = c == 'c'   ? o.blockcount
                 : c == 'b' ? o.blockstats
                            : static_cast<long>(o.timedstats_us / 1000000ULL);
        if (!parse_count(optarg, n))
          return usage_error(fmt::format("-{}: '{}' is not a count (a whole number, 0 or more)",
                                         static_cast<char>(c), optarg));
        if (c == 'c') o.blockcount = static_cast<int>(n);
        if (c == 'b') o.blockstats = static_cast<int>(n);
        if (c == 't') o.timedstats_us = 1000000ULL * static_cast<unsigned long>(n);
        break;
      }
      case 'p':
        o.pipe = true;
        break;
      case kSource:
        if (*optarg == '\0') return usage_error("--source wants a source name");
        o.source = optarg;
        break;
      case 'h':
        fmt::print("{}", kHelp);
        return 0;
      case kUsageOption:
        fmt::print("{}", kUsage);
        return 0;
      case 'V':
        fmt::print("rngtest (cryptoaccel {}), compatible with rng-tools' rngtest 5\n",
                   CRYPTOACCEL_VERSION_STRING);
        return 0;
      case ':':
        if (optopt != 0)
          return usage_error(
              fmt::format("option requires an argument -- '{}'", static_cast<char>(optopt)));
        return usage_error(fmt::format("option '{}' requires an argument", words[optind - 1]));
      default: {
        const std::string word =
            words[static_cast<std::size_t>(optind > previous ? optind - 1 : previous)];
        if (optopt != 0 && !word.starts_with("--"))
          return usage_error(fmt::format("invalid option -- '{}'", static_cast<char>(optopt)));
        return usage_error(fmt::format("unrecognized or ambiguous option '{}'", word));
      }
    }
  }
  if (optind < argc) return usage_error(fmt::format("too many arguments: '{}'", words[optind]));
  return -1;
}

}  // namespace cryptoaccel::tools::rngtest
