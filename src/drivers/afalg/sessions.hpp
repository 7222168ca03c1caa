// Driver sessions for each AF_ALG socket type (libkcapi's split: one file
// per type over socket.hpp). Each binds to one kernel driver name, so the
// session runs exactly that implementation.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "cryptoaccel/driver/driver.hpp"

namespace cryptoaccel::afalg {

// The largest cipher/AEAD request sent in one piece: well inside the socket's
// send buffer, so a send never waits for a read that has not started.
inline constexpr std::size_t kMaxCipherRequest = 64 * 1024;
// Hash input is sent in pieces of this size, with MSG_MORE between them.
inline constexpr std::size_t kHashChunk = 64 * 1024;

// Each throws DriverFailure (or InvalidKey when the kernel refuses the key).
std::unique_ptr<DriverSession> open_skcipher(const std::string& driver,
                                             std::span<const std::uint8_t> key);
std::unique_ptr<DriverSession> open_aead(const std::string& driver,
                                         std::span<const std::uint8_t> key, unsigned tag_size);
std::unique_ptr<DriverSession> open_hash(const std::string& driver, bool keyed,
                                         std::span<const std::uint8_t> key);

}  // namespace cryptoaccel::afalg
