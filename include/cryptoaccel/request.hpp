// A request is one unit of work: one cipher call, one AEAD seal/open, one
// digest or MAC. Requests carry their own status, and drivers take them in
// batches (DPDK's shape), so one bad request never fails its neighbours.
#pragma once

#include <cstdint>
#include <span>

#include "cryptoaccel/error.hpp"

namespace cryptoaccel {

enum class Operation : std::uint8_t {
  encrypt,  // cipher encrypt, AEAD seal
  decrypt,  // cipher decrypt, AEAD open
  digest,   // digest or MAC of `in` into `out`
};

struct Request {
  Operation op = Operation::encrypt;
  std::span<const std::uint8_t> iv;   // IV, nonce or XTS tweak
  std::span<const std::uint8_t> aad;  // AEAD only
  std::span<const std::uint8_t> in;
  std::span<std::uint8_t> out;  // ciphers: in.size() bytes (may alias `in`); digests: the digest
  std::span<std::uint8_t> tag;  // AEAD: written by seal, read by open
  // Set by the framework when this cipher request continues, on the same
  // driver session, the chain the previous request left there (CBC: the IV
  // is the last ciphertext block; CTR: the next counter, at a block
  // boundary). A driver may then skip re-loading the IV; `iv` still holds it.
  bool continues = false;
  ErrorCode status = ErrorCode::ok;  // written by the driver
  void* user = nullptr;              // the submitter's own use
};

}  // namespace cryptoaccel
