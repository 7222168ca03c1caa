// GCM and ChaCha20-Poly1305 through an AF_ALG aead socket. The kernel takes
// AAD || plaintext (seal) or AAD || ciphertext || tag (open) and returns
// AAD || ciphertext || tag or AAD || plaintext; a wrong tag is EBADMSG.
#include <vector>

#include "in_flight.hpp"
#include "session_setup.hpp"
#include "sessions.hpp"

namespace cryptoaccel::afalg {
namespace {

class AeadSession final : public DriverSession {
 public:
  AeadSession(Fd transform, unsigned tag_size)
      : transform_(std::move(transform)), tag_size_(tag_size) {}

  std::size_t process(std::span<Request> batch) noexcept override {
    std::array<PendingRead, kMaxInFlight> pending;
    std::size_t sent = 0;
    for (Request& r : batch) {
      // The tag length belongs to the transform, which refuses the change
      // while operation sockets are open (EBUSY): finish what is in flight
      // and close them first.
      if (sent == kMaxInFlight || (r.tag.size() != tag_size_ && sent != 0)) {
        in_flight_.complete({pending.data(), sent});
        sent = 0;
      }
      r.status = start(r, sent, pending[sent]);
      if (r.status == ErrorCode::ok) ++sent;
    }
    in_flight_.complete({pending.data(), sent});
    return batch.size();
  }

 private:
  ErrorCode start(Request& r, std::size_t slot, PendingRead& p) noexcept {
    if (r.op == Operation::digest) return ErrorCode::unsupported;
    if (r.in.size() + r.aad.size() > kMaxCipherRequest) return ErrorCode::invalid_length;
    // GCM in the kernel takes 4, 8 and 12 to 16 bytes. Another length is
    // this driver's failure, so an automatic choice moves the request on.
    if (r.tag.size() != tag_size_) {
      in_flight_.drop_all();
      if (set_auth_size(transform_, static_cast<unsigned>(r.tag.size())) != 0)
        return ErrorCode::driver_failure;
      tag_size_ = static_cast<unsigned>(r.tag.size());
    }
    std::vector<std::uint8_t>& aad_echo = aad_echo_[slot];
    try {
      aad_echo.resize(r.aad.size());
    } catch (...) {
      return ErrorCode::driver_failure;
    }
    const Fd* operation = in_flight_.socket(slot);
    if (operation == nullptr) return ErrorCode::driver_failure;
    const bool encrypt = r.op == Operation::encrypt;
    const std::uint32_t assoc = static_cast<std::uint32_t>(r.aad.size());
    const iovec send[3] = {{const_cast<std::uint8_t*>(r.aad.data()), r.aad.size()},
                           {const_cast<std::uint8_t*>(r.in.data()), r.in.size()},
                           {r.tag.data(), encrypt ? 0 : r.tag.size()}};
    if (const int error = send_request(*operation, encrypt, r.iv, &assoc, send, false);
        error != 0) {
      in_flight_.drop(slot);
      return status_from_errno(error);
    }
    // The whole input is in the kernel before the output is read, so an
    // in-place request is safe.
    p.request = &r;
    p.slot = slot;
    p.out[0] = {aad_echo.data(), aad_echo.size()};
    p.out[1] = {r.out.data(), r.in.size()};
    p.out[2] = {r.tag.data(), encrypt ? r.tag.size() : 0};
    p.parts = 3;
    return ErrorCode::ok;
  }

  Fd transform_;
  InFlight in_flight_{transform_};
  unsigned tag_size_;
  // The kernel copies the AAD to the output: one buffer per request in flight.
  std::array<std::vector<std::uint8_t>, kMaxInFlight> aad_echo_;
};

}  // namespace

std::unique_ptr<DriverSession> open_aead(const std::string& driver,
                                         std::span<const std::uint8_t> key, unsigned tag_size) {
  Fd transform = keyed_transform(SocketType::aead, driver, key, true);
  if (const int e = set_auth_size(transform, tag_size); e != 0)
    throw DriverFailure("afalg: '" + driver + "' refused a " + std::to_string(tag_size) +
                        "-byte tag: " + errno_text(e));
  return std::make_unique<AeadSession>(std::move(transform), tag_size);
}

}  // namespace cryptoaccel::afalg
