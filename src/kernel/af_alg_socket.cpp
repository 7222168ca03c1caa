#include "af_alg_socket.hpp"

#include <linux/if_alg.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

namespace cryptoaccel::kernel {

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

int Fd::release() noexcept {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

namespace {

// Sends `message` (control messages already set) with the data of `iov`;
// the kernel must take all of it in one call.
int send_message(const Fd& operation, msghdr& message, std::span<const iovec> iov,
                 bool more) noexcept {
  message.msg_iov = const_cast<iovec*>(iov.data());
  message.msg_iovlen = iov.size();
  std::size_t total = 0;
  for (const iovec& v : iov) total += v.iov_len;
  const ssize_t sent = ::sendmsg(operation.get(), &message, more ? MSG_MORE : 0);
  if (sent < 0) return -errno;
  if (static_cast<std::size_t>(sent) != total) return -EMSGSIZE;
  return 0;
}

}  // namespace

int probe_af_alg() noexcept {
  const int fd = ::socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  ::close(fd);
  return 0;
}

Fd bind_transform(SocketType type, std::string_view name, int& error) noexcept {
  sockaddr_alg address{};
  address.salg_family = AF_ALG;
  const std::string_view type_name = to_string(type);
  if (name.size() >= sizeof address.salg_name) {
    error = -ENAMETOOLONG;
    return {};
  }
  std::memcpy(address.salg_type, type_name.data(), type_name.size());
  std::memcpy(address.salg_name, name.data(), name.size());
  Fd fd(::socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    error = -errno;
    return {};
  }
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    error = -errno;
    return {};
  }
  error = 0;
  return fd;
}

int set_key(const Fd& transform, std::span<const std::uint8_t> key) noexcept {
  static const std::uint8_t kEmpty = 0;
  const void* data = key.empty() ? &kEmpty : key.data();
  return ::setsockopt(transform.get(), SOL_ALG, ALG_SET_KEY, data,
                      static_cast<socklen_t>(key.size())) == 0
             ? 0
             : -errno;
}

int set_auth_size(const Fd& transform, unsigned tag_size) noexcept {
  return ::setsockopt(transform.get(), SOL_ALG, ALG_SET_AEAD_AUTHSIZE, nullptr, tag_size) == 0
             ? 0
             : -errno;
}

Fd accept_operation(const Fd& transform, int& error) noexcept {
  Fd fd(::accept4(transform.get(), nullptr, nullptr, SOCK_CLOEXEC));
  error = fd.valid() ? 0 : -errno;
  return fd;
}

int send_request(const Fd& operation, bool encrypt, std::span<const std::uint8_t> iv,
                 const std::uint32_t* assoc_len, std::span<const iovec> iov, bool more) noexcept {
  // Control messages: the operation, the IV and (AEAD) the AAD length.
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(std::uint32_t)) +
                                CMSG_SPACE(sizeof(af_alg_iv) + 256) +
                                CMSG_SPACE(sizeof(std::uint32_t))] = {};
  if (iv.size() > 256) return -EINVAL;
  msghdr message{};
  message.msg_control = control;
  message.msg_controllen = CMSG_SPACE(sizeof(std::uint32_t)) +
                           (iv.empty() ? 0 : CMSG_SPACE(sizeof(af_alg_iv) + iv.size())) +
                           (assoc_len ? CMSG_SPACE(sizeof(std::uint32_t)) : 0);
  cmsghdr* c = CMSG_FIRSTHDR(&message);
  c->cmsg_level = SOL_ALG;
  c->cmsg_type = ALG_SET_OP;
  c->cmsg_len = CMSG_LEN(sizeof(std::uint32_t));
  const std::uint32_t op = encrypt ? ALG_OP_ENCRYPT : ALG_OP_DECRYPT;
  std::memcpy(CMSG_DATA(c), &op, sizeof op);
  if (!iv.empty()) {
    c = CMSG_NXTHDR(&message, c);
    c->cmsg_level = SOL_ALG;
    c->cmsg_type = ALG_SET_IV;
    c->cmsg_len = CMSG_LEN(sizeof(af_alg_iv) + iv.size());
    af_alg_iv header{};
    header.ivlen = static_cast<std::uint32_t>(iv.size());
    std::memcpy(CMSG_DATA(c), &header, sizeof header);
    std::memcpy(CMSG_DATA(c) + offsetof(af_alg_iv, iv), iv.data(), iv.size());
  }
  if (assoc_len) {
    c = CMSG_NXTHDR(&message, c);
    c->cmsg_level = SOL_ALG;
    c->cmsg_type = ALG_SET_AEAD_ASSOCLEN;
    c->cmsg_len = CMSG_LEN(sizeof(std::uint32_t));
    std::memcpy(CMSG_DATA(c), assoc_len, sizeof *assoc_len);
  }
  return send_message(operation, message, iov, more);
}

int send_data(const Fd& operation, std::span<const iovec> iov, bool more) noexcept {
  msghdr message{};
  return send_message(operation, message, iov, more);
}

int receive(const Fd& operation, std::span<const iovec> iov) noexcept {
  std::vector<iovec> rest(iov.begin(), iov.end());
  std::size_t left = 0;
  for (const iovec& v : rest) left += v.iov_len;
  std::size_t first = 0;
  // At least one read, with at least one byte of room, even when nothing
  // comes back: the kernel runs the operation only for a read that has room
  // (algif_aead loops while msg_data_left()), and an AEAD open of an empty
  // message must still check its tag.
  std::uint8_t spare = 0;
  if (left == 0) rest.push_back({&spare, 1});
  do {
    msghdr message{};
    message.msg_iov = rest.data() + first;
    message.msg_iovlen = rest.size() - first;
    const ssize_t got = ::recvmsg(operation.get(), &message, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (got == 0 && left != 0) return -EIO;
    left -= static_cast<std::size_t>(got);
    // Advance past what arrived; a short read continues where it stopped.
    std::size_t advance = static_cast<std::size_t>(got);
    while (first < rest.size() && advance >= rest[first].iov_len) advance -= rest[first++].iov_len;
    if (first < rest.size()) {
      rest[first].iov_base = static_cast<char*>(rest[first].iov_base) + advance;
      rest[first].iov_len -= advance;
    }
  } while (left != 0);
  return 0;
}

ErrorCode status_from_errno(int negative_errno) noexcept {
  switch (-negative_errno) {
    case 0:
      return ErrorCode::ok;
    case EBADMSG:
      return ErrorCode::authentication_failed;
    case EINVAL:
      return ErrorCode::invalid_length;  // the kernel refused this request's shape
    case ENOKEY:
      return ErrorCode::invalid_key;
    default:
      return ErrorCode::driver_failure;
  }
}

}  // namespace cryptoaccel::kernel
