// Everything `cryptoaccel speed` was asked to do, parsed and validated.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cryptoaccel/algorithm.hpp"

namespace cryptoaccel::tools::speed {

enum class Format { openssl, cryptotest, tcrypt, json, csv };

struct SpeedOptions {
  std::vector<std::string> evp;         // -evp ALG (repeatable)
  std::vector<std::string> hmac;        // -hmac DIGEST (as openssl speed)
  std::vector<std::string> positional;  // ALG...
  double seconds = 3.0;
  long long bytes = 0;                  // -bytes N: one size instead of the list
  CLI::Option* bytes_option = nullptr;  // tells whether -bytes was given at all
  std::string sizes_text = "16,64,256,1024,8192,16384";
  int multi = 1;
  int in_flight = 1;     // requests each worker keeps in flight (the asynchronous API)
  bool elapsed = false;  // accepted for compatibility: elapsed is the default
  bool cputime = false;  // divide by CPU time instead (OpenSSL's old default)
  bool machine_readable = false;
  bool decrypt = false;
  std::string driver = "auto";
  std::string format_text = "openssl";
  std::string plot;
  bool no_verify = false;

  // Filled by validate():
  std::vector<const Algorithm*> algorithms;
  std::vector<std::size_t> sizes;
  Format format = Format::openssl;
};

// Registers the options on the subcommand.
void add_options(CLI::App& command, SpeedOptions& options);

// Resolves names and checks every value; throws InvalidArgument or NotFound
// with a message naming the bad value.
void validate(SpeedOptions& options);

// OpenSSL spells its options with one dash (-evp, -seconds, -multi): rewrites
// those words so that CLI11 sees the long option. Other words pass unchanged.
std::vector<std::string> openssl_style_arguments(int argc, char** argv);

}  // namespace cryptoaccel::tools::speed
