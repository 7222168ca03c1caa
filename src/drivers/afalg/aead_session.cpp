// GCM and ChaCha20-Poly1305 through an AF_ALG aead socket. The kernel takes
// AAD || plaintext (seal) or AAD || ciphertext || tag (open) and returns
// AAD || ciphertext || tag or AAD || plaintext; a wrong tag is EBADMSG.
#include <vector>

#include "session_setup.hpp"
#include "sessions.hpp"

namespace cryptoaccel::afalg {
namespace {

class AeadSession final : public DriverSession {
 public:
  AeadSession(Fd transform, unsigned tag_size)
      : transform_(std::move(transform)), tag_size_(tag_size) {}

  std::size_t process(std::span<Request> batch) noexcept override {
    for (Request& r : batch) r.status = run(r);
    return batch.size();
  }

 private:
  ErrorCode run(Request& r) noexcept {
    if (r.op == Operation::digest) return ErrorCode::unsupported;
    if (r.in.size() + r.aad.size() > kMaxCipherRequest) return ErrorCode::invalid_length;
    // The tag length belongs to the transform; GCM in the kernel takes 4, 8
    // and 12 to 16 bytes. Another length is this driver's failure, so an
    // automatic choice moves the request to another driver.
    if (r.tag.size() != tag_size_) {
      // The kernel refuses options on a transform with operation sockets
      // open (EBUSY): close ours first.
      operation_.drop();
      if (set_auth_size(transform_, static_cast<unsigned>(r.tag.size())) != 0)
        return ErrorCode::driver_failure;
      tag_size_ = static_cast<unsigned>(r.tag.size());
    }
    const Fd* operation = operation_.get();
    if (operation == nullptr) return ErrorCode::driver_failure;
    const bool encrypt = r.op == Operation::encrypt;
    const std::uint32_t assoc = static_cast<std::uint32_t>(r.aad.size());
    const iovec send[3] = {{const_cast<std::uint8_t*>(r.aad.data()), r.aad.size()},
                           {const_cast<std::uint8_t*>(r.in.data()), r.in.size()},
                           {r.tag.data(), encrypt ? 0 : r.tag.size()}};
    int error = send_request(*operation, encrypt, r.iv, &assoc, send, false);
    if (error == 0) {
      try {
        aad_echo_.resize(r.aad.size());
      } catch (...) {
        return ErrorCode::driver_failure;
      }
      const iovec out[3] = {{aad_echo_.data(), aad_echo_.size()},
                            {r.out.data(), r.out.size()},
                            {r.tag.data(), encrypt ? r.tag.size() : 0}};
      error = receive(*operation, out);
    }
    if (error != 0) {
      operation_.drop();
      return status_from_errno(error);
    }
    return ErrorCode::ok;
  }

  Fd transform_;
  OperationSocket operation_{transform_};
  unsigned tag_size_;
  std::vector<std::uint8_t> aad_echo_;  // the kernel copies the AAD to the output
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
