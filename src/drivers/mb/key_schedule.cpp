#include "key_schedule.hpp"

#include <algorithm>
#include <array>

#include "cryptoaccel/driver/secret_bytes.hpp"

namespace cryptoaccel::mb {
namespace {

void expand_aes(const Route& route, const std::uint8_t* key, KeySchedule& s, IMB_MGR& m) {
  switch (route.key_size) {
    case IMB_KEY_128_BYTES:
      IMB_AES_KEYEXP_128(&m, key, s.encrypt_rounds, s.decrypt_rounds);
      break;
    case IMB_KEY_192_BYTES:
      IMB_AES_KEYEXP_192(&m, key, s.encrypt_rounds, s.decrypt_rounds);
      break;
    case IMB_KEY_256_BYTES:
      IMB_AES_KEYEXP_256(&m, key, s.encrypt_rounds, s.decrypt_rounds);
      break;
  }
}

void expand_gcm(const Route& route, const std::uint8_t* key, KeySchedule& s, IMB_MGR& m) {
  switch (route.key_size) {
    case IMB_KEY_128_BYTES:
      IMB_AES128_GCM_PRE(&m, key, &s.gcm);
      break;
    case IMB_KEY_192_BYTES:
      IMB_AES192_GCM_PRE(&m, key, &s.gcm);
      break;
    case IMB_KEY_256_BYTES:
      IMB_AES256_GCM_PRE(&m, key, &s.gcm);
      break;
  }
}

// The HMAC's digest over `in` (a key longer than a block), or the state
// after one block: the library's one-shot helpers, per digest.
void digest_of(IMB_HASH_ALG hmac, IMB_MGR& m, const std::uint8_t* in, std::size_t size,
               std::uint8_t* out) {
  switch (hmac) {
    case IMB_AUTH_HMAC_SHA_1:
      IMB_SHA1(&m, in, size, out);
      break;
    case IMB_AUTH_HMAC_SHA_224:
      IMB_SHA224(&m, in, size, out);
      break;
    case IMB_AUTH_HMAC_SHA_256:
      IMB_SHA256(&m, in, size, out);
      break;
    case IMB_AUTH_HMAC_SHA_384:
      IMB_SHA384(&m, in, size, out);
      break;
    default:
      IMB_SHA512(&m, in, size, out);
      break;
  }
}

void state_after_block(IMB_HASH_ALG hmac, IMB_MGR& m, const std::uint8_t* block,
                       std::uint8_t* state) {
  switch (hmac) {
    case IMB_AUTH_HMAC_SHA_1:
      IMB_SHA1_ONE_BLOCK(&m, block, state);
      break;
    case IMB_AUTH_HMAC_SHA_224:
      IMB_SHA224_ONE_BLOCK(&m, block, state);
      break;
    case IMB_AUTH_HMAC_SHA_256:
      IMB_SHA256_ONE_BLOCK(&m, block, state);
      break;
    case IMB_AUTH_HMAC_SHA_384:
      IMB_SHA384_ONE_BLOCK(&m, block, state);
      break;
    default:
      IMB_SHA512_ONE_BLOCK(&m, block, state);
      break;
  }
}

void expand_hmac(const Route& route, std::span<const std::uint8_t> key, KeySchedule& s,
                 IMB_MGR& m) {
  const std::size_t block = algorithm(route.algorithm).block_size;
  // RFC 2104: a key longer than the block is replaced by its digest, and
  // every key is padded with zeros to the block.
  std::array<std::uint8_t, 128> padded{}, pad{};
  if (key.size() > block)
    digest_of(route.hash, m, key.data(), key.size(), padded.data());
  else
    std::copy(key.begin(), key.end(), padded.begin());
  const std::size_t size = algorithm(route.algorithm).output_size;
  std::array<std::uint8_t, 128 + 64> outer_message{};
  for (std::size_t i = 0; i < block; ++i) pad[i] = padded[i] ^ 0x36;
  state_after_block(route.hash, m, pad.data(), s.inner);
  // H(K ^ ipad || "") goes after K ^ opad: the empty message's MAC.
  digest_of(route.hash, m, pad.data(), block, outer_message.data() + block);
  for (std::size_t i = 0; i < block; ++i) pad[i] = padded[i] ^ 0x5c;
  state_after_block(route.hash, m, pad.data(), s.outer);
  std::copy_n(pad.begin(), block, outer_message.begin());
  digest_of(route.hash, m, outer_message.data(), block + size, s.empty_message_mac);
  secure_wipe(padded.data(), padded.size());
  secure_wipe(pad.data(), pad.size());
  secure_wipe(outer_message.data(), outer_message.size());
}

}  // namespace

KeySchedule::~KeySchedule() {
  secure_wipe(this, sizeof *this);
}

void expand_key(const Route& route, std::span<const std::uint8_t> key, KeySchedule& schedule,
                IMB_MGR& manager) {
  switch (route.family) {
    case Family::cbc:
    case Family::ctr:
      expand_aes(route, key.data(), schedule, manager);
      break;
    case Family::gcm:
      expand_gcm(route, key.data(), schedule, manager);
      break;
    case Family::hmac:
      expand_hmac(route, key, schedule, manager);
      break;
    case Family::digest:
      break;
  }
}

}  // namespace cryptoaccel::mb
