// `cryptoaccel`: the command-line front end.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <map>

#include "command.hpp"
#include "cryptoaccel/cryptoaccel.hpp"
#include "speed/speed_options.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "cryptoaccel: userland access to cryptographic accelerators.\n"
      "Drivers: soft (OpenSSL libcrypto), null (framework overhead); kernel and /dev/crypto\n"
      "drivers appear when this machine offers them. See `cryptoaccel list`.",
      "cryptoaccel"};
  app.set_version_flag("--version", std::string("cryptoaccel ") + CRYPTOACCEL_VERSION_STRING);
  app.require_subcommand(1);
  app.fallthrough(false);
  std::string dpdk;
  app.add_option("--dpdk", dpdk,
                 "enable the dpdk driver with these DPDK EAL arguments, as CRYPTOACCEL_DPDK does "
                 "(e.g. '--no-huge -m 256 --vdev crypto_aesni_mb0'; docs/drivers/dpdk.md)")
      ->type_name("EAL-ARGS");

  std::map<const CLI::App*, cryptoaccel::tools::Action> actions;
  const auto add = [&](auto add_command) {
    const std::size_t before = app.get_subcommands({}).size();
    auto action = add_command(app);
    actions[app.get_subcommands({})[before]] = std::move(action);
  };
  add(cryptoaccel::tools::add_list_command);
  add(cryptoaccel::tools::add_speed_command);
  add(cryptoaccel::tools::add_calibrate_command);
  add(cryptoaccel::tools::add_rngtest_command);
  add(cryptoaccel::tools::add_rng_command);
  add(cryptoaccel::tools::add_devcrypto_command);

  try {
    // CLI11 takes the words in reverse order, without the program name.
    auto words = cryptoaccel::tools::speed::openssl_style_arguments(argc, argv);
    std::vector<std::string> reversed(words.rbegin(), words.rend() - 1);
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? 0 : 2;  // usage errors exit 2, as most Linux tools do
  }
  // Every framework of this process reads it, whichever command makes it.
  if (!dpdk.empty()) ::setenv("CRYPTOACCEL_DPDK", dpdk.c_str(), 1);
  try {
    for (const CLI::App* sub : app.get_subcommands()) return actions.at(sub)();
  } catch (const cryptoaccel::Error& e) {
    fmt::print(stderr, "cryptoaccel: {}\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "cryptoaccel: internal error: {}\n", e.what());
    return 1;
  }
  return 0;
}
