#include "rsa_operation.hpp"

#include <openssl/async.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "cryptoaccel/driver/secret_bytes.hpp"

namespace cryptoaccel::provider {
namespace {

// What a worker reads and writes: nothing of the caller's.
struct OwnedOperation {
  OwnedOperation(const RsaParameters& p, Bytes input, std::size_t out_size)
      : in(input.begin(), input.end()),
        label(p.label.begin(), p.label.end()),
        out(out_size),
        parameters(p) {
    parameters.label = label;
  }
  ~OwnedOperation() { secure_wipe(out.data(), out.size()); }
  OwnedOperation(const OwnedOperation&) = delete;
  OwnedOperation& operator=(const OwnedOperation&) = delete;

  std::vector<std::uint8_t> in, label, out;
  RsaParameters parameters;
  std::size_t length = 0;
};

}  // namespace

std::size_t run_private_key_operation(ProviderContext& pc, RsaSession& session,
                                      const RsaParameters& parameters, Bytes in, MutableBytes out,
                                      PrivateKeyOp op) {
  // Outside a job nothing is copied.
  if (pc.config().async && ASYNC_get_current_job() != nullptr) {
    auto owned = std::make_shared<OwnedOperation>(parameters, in, out.size());
    RsaSession* s = &session;
    if (pc.async_workers().run_paused(
            [owned, s, op] { owned->length = op(*s, owned->parameters, owned->in, owned->out); })) {
      if (owned->length != kNoResult) std::copy_n(owned->out.begin(), owned->length, out.begin());
      return owned->length;
    }
  }
  return op(session, parameters, in, out);
}

}  // namespace cryptoaccel::provider
