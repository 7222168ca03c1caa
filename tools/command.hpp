// Each subcommand of `cryptoaccel` lives in its own file and registers
// itself on the CLI11 application through one function declared here.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace cryptoaccel::tools {

// Adds the subcommand; returns the action to run when it is selected. The
// action returns the process exit status.
using Action = std::function<int()>;

Action add_list_command(CLI::App& app);
Action add_speed_command(CLI::App& app);
Action add_calibrate_command(CLI::App& app);
Action add_rngtest_command(CLI::App& app);
Action add_rng_command(CLI::App& app);
Action add_devcrypto_command(CLI::App& app);

}  // namespace cryptoaccel::tools
