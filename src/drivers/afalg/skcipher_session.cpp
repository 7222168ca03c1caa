// ECB, CBC, CTR, XTS and DES through an AF_ALG skcipher socket.
#include <cerrno>

#include "in_flight.hpp"
#include "session_setup.hpp"
#include "sessions.hpp"
#include "zero_copy.hpp"

namespace cryptoaccel::afalg {
namespace {

class SkcipherSession final : public DriverSession {
 public:
  explicit SkcipherSession(Fd transform) : transform_(std::move(transform)) {}

  std::size_t process(std::span<Request> batch) noexcept override {
    std::array<PendingRead, kMaxInFlight> pending;
    std::size_t sent = 0;
    for (Request& r : batch) {
      if (sent == kMaxInFlight) {
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
  // Sends one request on the socket of `slot`; its output is read later.
  ErrorCode start(Request& r, std::size_t slot, PendingRead& p) noexcept {
    if (r.op == Operation::digest) return ErrorCode::unsupported;
    if (r.in.size() > kMaxCipherRequest) return ErrorCode::invalid_length;
    const Fd* operation = in_flight_.socket(slot);
    if (operation == nullptr) return ErrorCode::driver_failure;
    const bool encrypt = r.op == Operation::encrypt;
    int error = -EOPNOTSUPP;
    if (SplicePipe::suits(r.in, r.out)) {
      error = send_request(*operation, encrypt, r.iv, nullptr, {}, true);
      if (error == 0) {
        error = splice_.send(*operation, r.in);
        if (error == -EOPNOTSUPP) {
          // No pipe: the request is started; its data goes by copy.
          const iovec in{const_cast<std::uint8_t*>(r.in.data()), r.in.size()};
          error = send_data(*operation, {&in, 1}, false);
        }
      }
    } else {
      // The whole input is in the kernel before the output is read, so an
      // in-place request (out aliasing in) is safe.
      const iovec in{const_cast<std::uint8_t*>(r.in.data()), r.in.size()};
      error = send_request(*operation, encrypt, r.iv, nullptr, {&in, 1}, false);
    }
    if (error != 0) {
      in_flight_.drop(slot);
      return status_from_errno(error);
    }
    p.request = &r;
    p.slot = slot;
    p.out[0] = {r.out.data(), r.in.size()};
    p.parts = 1;
    return ErrorCode::ok;
  }

  Fd transform_;
  InFlight in_flight_{transform_};
  SplicePipe splice_;
};

}  // namespace

std::unique_ptr<DriverSession> open_skcipher(const std::string& driver,
                                             std::span<const std::uint8_t> key) {
  return std::make_unique<SkcipherSession>(
      keyed_transform(SocketType::skcipher, driver, key, true));
}

}  // namespace cryptoaccel::afalg
