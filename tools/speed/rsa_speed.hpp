// `cryptoaccel speed rsa2048 rsa3072 rsa4096`: private- and public-key
// operations per second, as `openssl speed rsa2048` counts them (sign and
// verify of a 36-byte MD5+SHA-1 input with PKCS#1 v1.5; OpenSSL 3.2's
// encrypt and decrypt columns too), on the automatic choice or one driver
// or each, with the CPU time each took.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cryptoaccel/rsa.hpp"

namespace cryptoaccel::tools::speed {

struct RsaFigure {
  bool offered = false;  // the driver takes this operation
  std::uint64_t operations = 0;
  double elapsed = 0;
  double cpu = 0;         // process CPU seconds, user and system
  std::string served_by;  // the driver that served the last one
  double rate() const { return elapsed > 0 ? static_cast<double>(operations) / elapsed : 0; }
  double cpu_percent() const { return elapsed > 0 ? 100.0 * cpu / elapsed : 0; }
};

struct RsaMeasurement {
  const Algorithm* algorithm = nullptr;
  std::string driver;  // "auto" or a driver name
  RsaFigure sign, verify, encrypt, decrypt;
};

// Times each operation the driver takes for `seconds` with `key`; stops
// early when `interrupt` becomes true. Throws Error when the driver fails.
RsaMeasurement measure_rsa(const RsaKey& key, const std::string& driver, std::uint8_t operations,
                           double seconds, const std::atomic<bool>& interrupt);

// Checks the driver against soft: its signature verifies there and soft's
// here, and each decrypts what the other encrypted. The problem, or nothing.
std::optional<std::string> verify_rsa(const RsaKey& key, const std::string& driver,
                                      std::uint8_t operations);

// openssl speed's table (or its -mr lines), then each figure's CPU share.
void print_rsa(const std::vector<RsaMeasurement>& all, std::FILE* out, bool machine_readable,
               bool with_driver);

}  // namespace cryptoaccel::tools::speed
