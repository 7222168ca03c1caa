// Driver sessions for each kind of /dev/crypto operation: CIOCCRYPT for
// ciphers, digests and HMACs, CIOCAUTHCRYPT for AES-GCM. Each throws
// DriverFailure when the device refuses the session.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "cryptoaccel/driver/driver.hpp"

namespace cryptoaccel::cryptodev {

std::unique_ptr<DriverSession> open_cipher(const std::string& path, const Algorithm& algorithm,
                                           std::span<const std::uint8_t> key);
std::unique_ptr<DriverSession> open_aead(const std::string& path, const Algorithm& algorithm,
                                         std::span<const std::uint8_t> key);
std::unique_ptr<DriverSession> open_hash(const std::string& path, const Algorithm& algorithm,
                                         std::span<const std::uint8_t> key);

}  // namespace cryptoaccel::cryptodev
