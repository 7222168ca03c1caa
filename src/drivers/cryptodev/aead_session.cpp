// AES-GCM through CIOCAUTHCRYPT. The ABI keeps ciphertext and tag together:
// a seal writes ciphertext || tag into dst, an open reads them from src and
// fails with EBADMSG when the tag does not match. Our requests keep the tag
// apart, so each device session has a buffer to join or split them.
#include <cstring>
#include <vector>

#include "cryptoaccel/session.hpp"
#include "parallel_ioctls.hpp"
#include "sessions.hpp"

namespace cryptoaccel::cryptodev {
namespace {

class AeadSession final : public ParallelIoctlSession {
 public:
  using ParallelIoctlSession::ParallelIoctlSession;
  ~AeadSession() override {
    for (auto& b : buffers_) secure_wipe(b.data(), b.size());
  }

 private:
  ErrorCode run(const DeviceSession& device_session, Request& r) noexcept override {
    if (r.op == Operation::digest) return ErrorCode::unsupported;
    if (r.in.size() + r.aad.size() > kMaxRequest) return ErrorCode::invalid_length;
    const std::size_t n = r.in.size(), t = r.tag.size();
    std::vector<std::uint8_t>& joined = buffers_[&device_session - &first_device_session()];
    try {
      joined.resize(2 * (n + t));
    } catch (...) {
      return ErrorCode::driver_failure;
    }
    const bool seal = r.op == Operation::encrypt;
    std::uint8_t* input = joined.data();
    std::uint8_t* output = joined.data() + n + t;
    if (!seal) {
      std::memcpy(input, r.in.data(), n);
      std::memcpy(input + n, r.tag.data(), t);
    }
    CryptAuthOp op{};
    op.ses = device_session.id();
    op.op = seal ? kEncrypt : kDecrypt;
    op.len = static_cast<std::uint32_t>(seal ? n : n + t);
    op.auth_len = static_cast<std::uint32_t>(r.aad.size());
    op.auth_src = r.aad.empty() ? 0 : address(r.aad.data());
    op.src = seal ? address(r.in.data()) : address(input);
    op.dst = address(output);
    op.tag_len = static_cast<std::uint32_t>(t);
    op.iv = address(r.iv.data());
    op.iv_len = static_cast<std::uint32_t>(r.iv.size());
    const ErrorCode status =
        status_from_errno(device_ioctl(device_session.device(), kCiocAuthCrypt, &op));
    if (status == ErrorCode::ok) {
      std::memcpy(r.out.data(), output, n);
      if (seal) std::memcpy(r.tag.data(), output + n, t);
    }
    secure_wipe(joined.data(), joined.size());
    return status;
  }

  std::array<std::vector<std::uint8_t>, kMaxParallelIoctls> buffers_;
};

}  // namespace

std::unique_ptr<DriverSession> open_aead(const std::string& path, const Algorithm& algorithm,
                                         std::span<const std::uint8_t> key) {
  return std::make_unique<AeadSession>(path, algorithm, key);
}

}  // namespace cryptoaccel::cryptodev
