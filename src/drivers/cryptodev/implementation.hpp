// What serves one algorithm behind /dev/crypto, as CIOCGSESSINFO reports it:
// the implementation's driver name, whether it is an off-CPU engine, and
// whether it is our own CUSE server (whose driver names start "cryptoaccel:").
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "cryptoaccel/driver/driver.hpp"
#include "device.hpp"

namespace cryptoaccel::cryptodev {

// The prefix of every driver name our devcrypto server reports.
inline constexpr std::string_view kServerDriverPrefix = "cryptoaccel:";

struct Implementation {
  std::string name;    // the generic name ("cbc(aes)")
  std::string driver;  // the implementation ("cbc-aes-aesni", "cryptoaccel:soft")
  DriverKind kind = DriverKind::software;
  bool hardware_flag = false;  // SIOP_FLAG_KERNEL_DRIVER_ONLY was set
  bool our_server = false;
  // XTS only: the device served a length that is not a whole number of
  // blocks (ciphertext stealing). cryptodev-linux refuses those (EINVAL);
  // our server serves them.
  bool partial_blocks = false;
};

// Opens a session for `algorithm` with a throw-away key and asks what serves
// it; null when the device refuses the algorithm. For XTS it also asks the
// device to encrypt 17 bytes, to learn whether it takes partial blocks.
std::optional<Implementation> find_implementation(const std::shared_ptr<Device>& device,
                                                  const Algorithm& algorithm);

// Hardware from the flag, or from the driver name: virtio_crypto_aes_cbc does
// not set the flag on Linux 6.1.
DriverKind kind_of(std::string_view driver, bool hardware_flag) noexcept;

int priority_of(const Implementation& implementation) noexcept;
std::string describe(const Implementation& implementation, const std::string& path);

}  // namespace cryptoaccel::cryptodev
