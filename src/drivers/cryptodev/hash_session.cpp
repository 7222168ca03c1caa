// Digests and HMACs through CIOCCRYPT with `mac` as the output. A request
// that fits one ioctl is hashed in one (flags 0: reset, update, final);
// larger input goes in pieces with COP_FLAG_UPDATE, the first also with
// COP_FLAG_RESET, the last with COP_FLAG_FINAL. A stream has a cryptodev
// session of its own, which holds its running state.
#include <algorithm>
#include <cstring>

#include "parallel_ioctls.hpp"
#include "sessions.hpp"

namespace cryptoaccel::cryptodev {
namespace {

int hash_piece(const DeviceSession& session, std::span<const std::uint8_t> in, std::uint16_t flags,
               std::uint8_t* mac) noexcept {
  CryptOp op{};
  op.ses = session.id();
  op.op = kEncrypt;
  op.flags = flags;
  op.len = static_cast<std::uint32_t>(in.size());
  op.src = in.empty() ? 0 : address(in.data());
  op.mac = address(mac);
  return device_ioctl(session.device(), kCiocCrypt, &op);
}

class HashStream final : public DigestStream {
 public:
  explicit HashStream(DeviceSession session) : session_(std::move(session)) {}
  ErrorCode update(std::span<const std::uint8_t> in) noexcept override {
    // An UPDATE of zero bytes would finish the hash (cryptodev-linux's rule).
    while (!in.empty()) {
      const std::size_t n = std::min(in.size(), kMaxRequest);
      if (const int e = hash_piece(session_, in.first(n), kFlagUpdate, nullptr); e != 0)
        return status_from_errno(e);
      in = in.subspan(n);
    }
    return ErrorCode::ok;
  }
  ErrorCode final(std::span<std::uint8_t> out) noexcept override {
    return status_from_errno(hash_piece(session_, {}, kFlagFinal, out.data()));
  }

 private:
  DeviceSession session_;
};

class HashSession final : public ParallelIoctlSession {
 public:
  using ParallelIoctlSession::ParallelIoctlSession;

  std::unique_ptr<DigestStream> open_stream() override {
    DeviceSession session;
    if (const int e = session.create(first_device_session().shared_device(), algorithm().id, key());
        e != 0)
      throw DriverFailure("cryptodev: cannot start a hash stream: " +
                          std::string(std::strerror(-e)));
    return std::make_unique<HashStream>(std::move(session));
  }

 private:
  ErrorCode run(const DeviceSession& device_session, Request& r) noexcept override {
    if (r.op != Operation::digest) return ErrorCode::unsupported;
    std::span<const std::uint8_t> in = r.in;
    if (in.size() <= kMaxRequest)
      return status_from_errno(hash_piece(device_session, in, 0, r.out.data()));
    std::uint16_t flags = kFlagUpdate | kFlagReset;
    while (in.size() > kMaxRequest) {
      if (const int e = hash_piece(device_session, in.first(kMaxRequest), flags, nullptr); e != 0)
        return status_from_errno(e);
      in = in.subspan(kMaxRequest);
      flags = kFlagUpdate;
    }
    return status_from_errno(hash_piece(device_session, in, kFlagFinal, r.out.data()));
  }
};

}  // namespace

std::unique_ptr<DriverSession> open_hash(const std::string& path, const Algorithm& algorithm,
                                         std::span<const std::uint8_t> key) {
  return std::make_unique<HashSession>(path, algorithm, key);
}

}  // namespace cryptoaccel::cryptodev
