// ECB, CBC, CTR, XTS and DES through an AF_ALG skcipher socket.
#include "session_setup.hpp"
#include "sessions.hpp"

namespace cryptoaccel::afalg {
namespace {

class SkcipherSession final : public DriverSession {
 public:
  explicit SkcipherSession(Fd transform) : transform_(std::move(transform)) {}

  std::size_t process(std::span<Request> batch) noexcept override {
    for (Request& r : batch) r.status = run(r);
    return batch.size();
  }

 private:
  ErrorCode run(Request& r) noexcept {
    if (r.op == Operation::digest) return ErrorCode::unsupported;
    if (r.in.size() > kMaxCipherRequest) return ErrorCode::invalid_length;
    const Fd* operation = operation_.get();
    if (operation == nullptr) return ErrorCode::driver_failure;
    // The whole input is in the kernel before the output is read, so an
    // in-place request (out aliasing in) is safe.
    const iovec in{const_cast<std::uint8_t*>(r.in.data()), r.in.size()};
    int error =
        send_request(*operation, r.op == Operation::encrypt, r.iv, nullptr, {&in, 1}, false);
    if (error == 0) {
      const iovec out{r.out.data(), r.out.size()};
      error = receive(*operation, {&out, 1});
    }
    if (error != 0) {
      operation_.drop();
      return status_from_errno(error);
    }
    return ErrorCode::ok;
  }

  Fd transform_;
  OperationSocket operation_{transform_};
};

}  // namespace

std::unique_ptr<DriverSession> open_skcipher(const std::string& driver,
                                             std::span<const std::uint8_t> key) {
  return std::make_unique<SkcipherSession>(
      keyed_transform(SocketType::skcipher, driver, key, true));
}

}  // namespace cryptoaccel::afalg
