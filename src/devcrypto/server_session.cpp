#include "server_session.hpp"

#include <cerrno>
#include <cstring>

#include "../abi/cryptodev.hpp"

namespace cryptoaccel::devcrypto {

int errno_of(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::ok:
      return 0;
    case ErrorCode::authentication_failed:
      return EBADMSG;
    case ErrorCode::driver_failure:
      return EIO;
    default:
      return EINVAL;
  }
}

ServerSession::ServerSession(const Service& service, AlgorithmId id,
                             std::span<const std::uint8_t> key)
    : algorithm_(&cryptoaccel::algorithm(id)) {
  const SessionOptions options = service.session_options();
  const std::string_view name = algorithm_->name;
  switch (algorithm_->kind) {
    case AlgorithmKind::cipher:
      cipher_ = std::make_unique<CipherSession>(name, key, options);
      break;
    case AlgorithmKind::aead:
      aead_ = std::make_unique<AeadSession>(name, key, options);
      break;
    case AlgorithmKind::digest:
      digest_ = std::make_unique<DigestSession>(name, options);
      break;
    case AlgorithmKind::mac:
      digest_ = std::make_unique<MacSession>(name, key, options);
      break;
  }
}

ServerSession::~ServerSession() {
  secure_wipe(iv_.data(), iv_.size());
}

void ServerSession::advance_iv(bool encrypt, std::span<const std::uint8_t> in,
                               std::span<const std::uint8_t> out) noexcept {
  const std::size_t iv_size = algorithm_->iv_size;
  switch (algorithm_->mode) {
    case CipherMode::cbc: {
      // The next IV is the last ciphertext block.
      const auto ciphertext = encrypt ? out : in;
      if (ciphertext.size() >= iv_size)
        std::memcpy(iv_.data(), ciphertext.data() + ciphertext.size() - iv_size, iv_size);
      break;
    }
    case CipherMode::ctr: {
      // The counter moves on by every block begun, as the kernel's ctr does.
      std::uint64_t blocks = (in.size() + 15) / 16;
      for (std::size_t i = iv_size; i-- > 0 && blocks != 0;) {
        const std::uint64_t sum = iv_[i] + (blocks & 0xff);
        iv_[i] = static_cast<std::uint8_t>(sum);
        blocks = (blocks >> 8) + (sum >> 8);
      }
      break;
    }
    default:
      break;  // ECB has no IV; an XTS tweak names one data unit and is given each time
  }
}

int ServerSession::cipher(bool encrypt, const std::uint8_t* iv, std::span<const std::uint8_t> in,
                          std::span<std::uint8_t> out, std::uint8_t* iv_out) noexcept {
  if (!cipher_) return EINVAL;
  const std::size_t iv_size = algorithm_->iv_size;
  if (iv != nullptr) std::memcpy(iv_.data(), iv, iv_size);
  try {
    const std::span<const std::uint8_t> use_iv(iv_.data(), iv_size);
    if (!in.empty()) {
      if (encrypt)
        cipher_->encrypt(use_iv, in, out);
      else
        cipher_->decrypt(use_iv, in, out);
    }
  } catch (const Error& e) {
    return errno_of(e.code());
  } catch (...) {
    return EIO;
  }
  advance_iv(encrypt, in, out);
  if (iv_out != nullptr) std::memcpy(iv_out, iv_.data(), iv_size);
  return 0;
}

bool ServerSession::finishes(std::uint16_t flags, std::size_t len) noexcept {
  // cryptodev-linux's rule: FINAL, or no UPDATE, or an empty request.
  return (flags & cryptodev::kFlagFinal) != 0 || (flags & cryptodev::kFlagUpdate) == 0 || len == 0;
}

int ServerSession::hash(std::uint16_t flags, std::span<const std::uint8_t> in, std::uint8_t* mac,
                        bool& finished) noexcept {
  finished = false;
  if (!digest_) return EINVAL;
  try {
    // Flags 0 or RESET start a new hash: a running one is dropped.
    if ((flags == 0 || (flags & cryptodev::kFlagReset) != 0) && hashing_) {
      std::array<std::uint8_t, 64> scratch;
      digest_->final({scratch.data(), digest_->size()});
      secure_wipe(scratch.data(), scratch.size());
      hashing_ = false;
    }
    if (!in.empty()) {
      digest_->update(in);
      hashing_ = true;
    }
    if (finishes(flags, in.size())) {
      digest_->final({mac, digest_->size()});
      hashing_ = false;
      finished = true;
    }
  } catch (const Error& e) {
    hashing_ = false;
    return errno_of(e.code());
  } catch (...) {
    hashing_ = false;
    return EIO;
  }
  return 0;
}

int ServerSession::aead(bool encrypt, std::span<const std::uint8_t> iv,
                        std::span<const std::uint8_t> aad, std::span<const std::uint8_t> in,
                        std::span<std::uint8_t> out, std::size_t tag_len) noexcept {
  if (!aead_) return EINVAL;
  try {
    if (encrypt) {
      aead_->seal(iv, aad, in, out.first(in.size()), out.subspan(in.size(), tag_len));
    } else {
      const std::size_t n = in.size() - tag_len;
      aead_->open(iv, aad, in.first(n), in.subspan(n, tag_len), out.first(n));
    }
  } catch (const Error& e) {
    return errno_of(e.code());
  } catch (...) {
    return EIO;
  }
  return 0;
}

}  // namespace cryptoaccel::devcrypto
