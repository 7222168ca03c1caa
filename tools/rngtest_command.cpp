// `cryptoaccel rngtest`: rng-tools' rngtest, faster. Its options are parsed
// by rngtest/options.cpp, not by CLI11, so that every spelling rngtest takes
// works and usage errors exit 10 as rngtest's do.
#include <memory>

#include "command.hpp"
#include "rngtest/options.hpp"
#include "rngtest/run.hpp"

namespace cryptoaccel::tools {

Action add_rngtest_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "rngtest",
      "Check random data with the FIPS 140-2 tests, as rng-tools' rngtest (same options,\n"
      "statistics, counts and exit statuses): stdin by default, or --source S.\n"
      "`cryptoaccel rngtest --help` lists the options.");
  command->set_help_flag();  // --help is rngtest's own
  command->prefix_command();
  command->allow_extras();
  return [command] {
    rngtest::Options options;
    const int parsed = rngtest::parse(command->remaining(), options);
    if (parsed >= 0) return parsed;
    return rngtest::run(options);
  };
}

}  // namespace cryptoaccel::tools
