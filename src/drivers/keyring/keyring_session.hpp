// One RSA key in the kernel keyring and the requests run with it.
#pragma once

#include <memory>

#include "cryptoaccel/driver/driver.hpp"
#include "kernel_keys.hpp"

namespace cryptoaccel::keyring {

// How an instance reaches its implementation: `raw` asks for enc=raw (the
// best "rsa"), padding here; `pkcs1` asks for enc=pkcs1 with no hash (the
// best "pkcs1pad(rsa)", a device's own), which only encrypts and decrypts.
enum class Reach : std::uint8_t { raw, pkcs1 };

// Loads the blob's private key into `ring`. Throws Unsupported for a
// public key (the kernel takes private keys in PKCS#8 only) and
// DriverFailure, saying why, when the kernel refuses it.
std::unique_ptr<DriverSession> open_keyring_session(const Algorithm& algorithm,
                                                    std::span<const std::uint8_t> blob,
                                                    KeySerial ring, Reach reach);

}  // namespace cryptoaccel::keyring
