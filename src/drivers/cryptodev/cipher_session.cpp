// ECB, CBC, CTR, XTS and DES through CIOCCRYPT: one ioctl per request, the
// IV given every time, so a request never depends on the IV the device kept
// from the previous one.
#include "parallel_ioctls.hpp"
#include "sessions.hpp"

namespace cryptoaccel::cryptodev {
namespace {

class CipherSession final : public ParallelIoctlSession {
 public:
  using ParallelIoctlSession::ParallelIoctlSession;

 private:
  ErrorCode run(const DeviceSession& device_session, Request& r) noexcept override {
    if (r.op == Operation::digest) return ErrorCode::unsupported;
    if (r.in.size() > kMaxRequest) return ErrorCode::invalid_length;
    CryptOp op{};
    op.ses = device_session.id();
    op.op = r.op == Operation::encrypt ? kEncrypt : kDecrypt;
    op.len = static_cast<std::uint32_t>(r.in.size());
    op.src = address(r.in.data());
    op.dst = address(r.out.data());
    op.iv = r.iv.empty() ? 0 : address(r.iv.data());
    return status_from_errno(device_ioctl(device_session.device(), kCiocCrypt, &op));
  }
};

}  // namespace

std::unique_ptr<DriverSession> open_cipher(const std::string& path, const Algorithm& algorithm,
                                           std::span<const std::uint8_t> key) {
  return std::make_unique<CipherSession>(path, algorithm, key);
}

}  // namespace cryptoaccel::cryptodev
