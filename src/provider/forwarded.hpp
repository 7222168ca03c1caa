// The direct path. Where soft alone would serve an algorithm (no profile or
// preference sends any request of it elsewhere: sole_driver()), going
// through a session only adds cost to what OpenSSL's own implementation
// does anyway. So the provider registers the default provider's own
// implementation under its name, wrapped only to hand it the default
// provider's context (loaded in OpenSslDefault's library context) and to
// count its usage as soft's. A request then costs one indirect call more
// than with the default provider (docs/provider.md, "Speed").
//
// The AEADs keep the checks the provider makes where OpenSSL 3.0's default
// provider does not (docs/provider.md, "Where cryptoaccel differs"): a
// guard in front of OpenSSL's ChaCha20-Poly1305 makes the final
// EVP_Cipher(ctx, NULL, NULL, 0) end the message (tag made or checked), and
// refuses a message without a key or a decryption without a tag; one in
// front of AES-GCM refuses a fixed IV or invocation field longer than the
// IV, which OpenSSL would copy past it.
//
// What the direct path never takes: an algorithm some hardware may serve,
// an implementation with a function this build does not know (a newer
// OpenSSL's), and everything when `direct = no`.
#pragma once

#include <openssl/core.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cryptoaccel/cryptoaccel.hpp"
#include "direct_usage.hpp"

namespace cryptoaccel::provider {

class OpenSslDefault;
class OpenSslErrorQueue;

// The checks kept in front of OpenSSL's implementation.
enum class Guard : std::uint8_t { none, gcm, chacha20_poly1305 };

// The highest function id of a cipher, digest or MAC table that is
// forwarded (OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS).
inline constexpr int kMaxForwardedFunction = 14;

// One forwarded algorithm: the default provider's functions by id, and
// where its usage is counted.
struct ForwardedAlgorithm {
  int operation = 0;  // OSSL_OP_CIPHER, OSSL_OP_DIGEST or OSSL_OP_MAC
  void* inner_provctx = nullptr;
  std::array<void (*)(void), kMaxForwardedFunction + 1> inner{};
  const DirectUsageSink* usage = nullptr;  // counted as soft's (direct_usage.hpp)
  AlgorithmId counted_as{};
  bool counts = false;  // HMAC: false until a digest of ours is chosen
  Guard guard = Guard::none;
  const OpenSslErrorQueue* errors = nullptr;  // where a guard reports
  // ChaCha20-Poly1305: the running OpenSSL ends a message at
  // EVP_Cipher(ctx, NULL, NULL, 0) (OpenSslDefault::Contract).
  bool empty_cipher_ends_message = false;
  // A parameter set naming one of its parameters twice is refused whole
  // (OpenSslDefault::Contract::repeated_param_refused).
  bool repeated_param_refused = false;
  std::vector<OSSL_DISPATCH> table;           // what OpenSSL calls

  // The default provider's function `id`, as the type its id names.
  template <typename Fn>
  Fn* function(int id) const noexcept {
    return reinterpret_cast<Fn*>(inner[id]);
  }
};

// The forwarded algorithm in `slot` of the provider instance `provctx`
// (ours): how functions that get only the provider context find theirs.
const ForwardedAlgorithm& forwarded_slot(void* provctx, std::size_t slot) noexcept;

// Digests without a wrapper context (forwarded_digests.cpp): an instance
// index for their update and final, or none when all are taken.
std::optional<std::size_t> claim_digest_instance() noexcept;
void release_digest_instance(std::size_t instance) noexcept;
// Fills a.table with OpenSSL's digest `functions` and ours where needed;
// false when `functions` holds one that cannot go unwrapped.
bool unwrapped_digest(ForwardedAlgorithm& a, const OSSL_DISPATCH* functions, std::size_t instance,
                      std::size_t slot);

class Forwarding {
 public:
  // Counts as drivers()[driver_index] of `framework` (soft). Forwards
  // every algorithm in `candidates` (and HMAC when
  // `hmac_candidate`, counted under hmac(DIGEST) as its digest parameter
  // says) whose implementation `defaults` has and whose functions are all
  // known here.
  Forwarding(Framework& framework, std::size_t driver_index, OpenSslDefault& defaults,
             const OpenSslErrorQueue& errors, const std::vector<AlgorithmId>& candidates,
             bool hmac_candidate);
  ~Forwarding();
  Forwarding(const Forwarding&) = delete;
  Forwarding& operator=(const Forwarding&) = delete;

  // The table to register for `id`, or null where the provider's own
  // implementation serves.
  const OSSL_DISPATCH* table(AlgorithmId id) const noexcept;
  // The same for the EVP_MAC "HMAC".
  const OSSL_DISPATCH* hmac_table() const noexcept;
  std::size_t forwarded_algorithms() const noexcept;  // not counting HMAC

  // Slot kAlgorithmCount is HMAC's. Null where nothing is forwarded.
  static constexpr std::size_t kSlots = kAlgorithmCount + 1;
  const ForwardedAlgorithm* slot(std::size_t index) const noexcept { return slots_[index].get(); }

 private:
  std::unique_ptr<DirectUsageSink> usage_;
  std::optional<std::size_t> digest_instance_;
  std::array<std::unique_ptr<ForwardedAlgorithm>, kSlots> slots_;
};

}  // namespace cryptoaccel::provider
