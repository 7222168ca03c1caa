// Settings a user writes — keys in openssl.cnf, environment variables,
// command options — parsed here once, so that the command, the provider and
// the /dev/crypto server read each value the same way and say the same
// thing about a bad one.
//
// Every parse_* function ignores spaces and tabs around the value and
// throws InvalidArgument naming `where` (the key or variable) and the value.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cryptoaccel/framework.hpp"
#include "cryptoaccel/session.hpp"

namespace cryptoaccel {

// `value` without the spaces and tabs around it.
std::string_view trim_setting(std::string_view value) noexcept;

// "fastest", "offload" or "software". An empty `where` leaves the
// setting's name out of the message (for a caller that adds it itself).
Policy parse_policy(std::string_view value, std::string_view where);

// The offload share (FrameworkOptions::offload_share): a number in (0, 1000].
double parse_offload_share(std::string_view value, std::string_view where);

// 1, yes, true, on / 0, no, false, off, or empty (off).
bool parse_switch(std::string_view value, std::string_view where);

// A whole number from `low` to `high` (a count of threads...).
unsigned parse_count(std::string_view value, std::string_view where, unsigned low, unsigned high);

// What the seed source reads (open_random_source() names): best, hwrng,
// getrandom, rdrand, rdseed, rndr, rndrrs, afalg[:ALG], file:PATH.
std::string parse_seed_source(std::string_view value, std::string_view where);

// The overrides the environment gives every front end:
// CRYPTOACCEL_POLICY, CRYPTOACCEL_OFFLOAD_SHARE, CRYPTOACCEL_STATS and
// CRYPTOACCEL_PROFILE. An unset or empty variable is no override.
struct EnvironmentSettings {
  std::optional<Policy> policy;
  std::optional<double> offload_share;
  std::optional<bool> stats;
  // CRYPTOACCEL_DIRECT: may the provider hand what soft alone serves to
  // OpenSSL's own implementation (docs/provider.md, "Speed")?
  std::optional<bool> direct;
  bool profile = false;  // CRYPTOACCEL_PROFILE is set (default_profile_path() reads it)
};

// Reads the environment. A value it cannot use throws InvalidArgument when
// `ignored` is null; otherwise that variable is left out and the reason
// ("CRYPTOACCEL_POLICY ignored: ...") appended to *ignored.
EnvironmentSettings read_environment(std::vector<std::string>* ignored = nullptr);

// Checks that every driver `preference` names exists in `framework` and
// does cryptography: the null driver only measures overhead, so a front
// end that serves `clients` ("applications", "/dev/crypto clients") refuses
// it. Throws NotFound or InvalidArgument.
void check_serving_preference(const Framework& framework, const DriverPreference& preference,
                              std::string_view clients);

}  // namespace cryptoaccel
