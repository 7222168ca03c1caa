// A throwaway RSA private key (PKCS#8 DER) for the probe's trial load.
#pragma once

#include <cstdint>
#include <span>

namespace cryptoaccel::keyring {

std::span<const std::uint8_t> probe_key() noexcept;

}  // namespace cryptoaccel::keyring
