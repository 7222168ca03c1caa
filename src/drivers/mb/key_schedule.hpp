// What one session precomputes from its key, once, for every request of
// every burst it joins: AES round keys (CBC, CTR), GCM's hash key tables,
// HMAC's inner and outer states. Wiped when the session ends.
#pragma once

#include <intel-ipsec-mb.h>

#include <cstdint>
#include <span>

#include "routes.hpp"

namespace cryptoaccel::mb {

struct KeySchedule {
  alignas(64) gcm_key_data gcm;
  alignas(16) std::uint32_t encrypt_rounds[4 * 15];
  alignas(16) std::uint32_t decrypt_rounds[4 * 15];
  // The hash state after one block of key ^ 0x36.. and of key ^ 0x5c..
  // (RFC 2104), as the HMAC jobs take them: room for SHA-512's.
  alignas(16) std::uint8_t inner[64];
  alignas(16) std::uint8_t outer[64];
  // HMAC of the empty message, which the library refuses to compute.
  std::uint8_t empty_message_mac[64];

  KeySchedule() = default;
  KeySchedule(const KeySchedule&) = delete;
  KeySchedule& operator=(const KeySchedule&) = delete;
  ~KeySchedule();
};

// Fills what `route` needs from `key` (already checked against the
// capability).
void expand_key(const Route& route, std::span<const std::uint8_t> key, KeySchedule& schedule,
                IMB_MGR& manager);

}  // namespace cryptoaccel::mb
