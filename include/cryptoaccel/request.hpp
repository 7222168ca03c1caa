// A request is one unit of work: one cipher call, one AEAD seal/open, one
// digest or MAC. Requests carry their own status, and drivers take them in
// batches (DPDK's shape), so one bad request never fails its neighbours.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

#include "cryptoaccel/error.hpp"

namespace cryptoaccel {

enum class Operation : std::uint8_t {
  encrypt,  // cipher encrypt, AEAD seal
  decrypt,  // cipher decrypt, AEAD open
  digest,   // digest or MAC of `in` into `out`
  // RSA (RsaSession): encrypt is the public-key operation, decrypt the
  // private one; sign turns the digest in `in` into the signature in `out`,
  // verify checks the signature in `tag` against the digest in `in`.
  sign,
  verify,
};

struct RsaParameters;  // cryptoaccel/rsa.hpp

struct Request {
  Operation op = Operation::encrypt;
  std::span<const std::uint8_t> iv;   // IV, nonce or XTS tweak
  std::span<const std::uint8_t> aad;  // AEAD only
  std::span<const std::uint8_t> in;
  // Ciphers: in.size() bytes, which may be `in` itself or overlap it (an
  // output that begins after the input's first byte gets the input moved
  // to it before any driver runs, and `in` then names those bytes);
  // digests: the digest.
  std::span<std::uint8_t> out;
  std::span<std::uint8_t> tag;  // AEAD: written by seal, read by open
  // Set by the framework when this cipher request continues, on the same
  // driver session, the chain the previous request left there (CBC: the IV
  // is the last ciphertext block; CTR: the next counter, at a block
  // boundary). A driver may then skip re-loading the IV; `iv` still holds it.
  bool continues = false;
  ErrorCode status = ErrorCode::ok;  // written by the driver
  void* user = nullptr;              // the submitter's own use
  // RSA only: the padding and digests of the operation.
  const RsaParameters* rsa = nullptr;
  // RSA decrypt: the plaintext's length, written by the driver.
  std::size_t out_length = 0;
};

// Requests started without waiting for them (Session::start): how many
// have not run yet, and what to do once all have. `unfinished` reaches 0
// just before on_done runs: with on_done set, the ticket and the requests
// must stay valid until on_done has run; without, until unfinished is 0.
struct AsyncTicket {
  std::atomic<std::size_t> unfinished{0};
  // Called once, when the last of the requests has run, on the thread that
  // ran it (the one that filled or flushed a burst: perhaps the starter's
  // own, inside start() or flush()). Must not throw; may be null.
  void (*on_done)(AsyncTicket& ticket) = nullptr;
  void* user = nullptr;  // the starter's own use
};

}  // namespace cryptoaccel
