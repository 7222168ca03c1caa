#include "server_session.hpp"

#include <cerrno>
#include <cstring>
#include <thread>

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

ServerSession::ServerSession(const Service& service, const SessionParts& parts)
    : null_cipher_(parts.null_cipher) {
  const SessionOptions options = service.session_options();
  if (parts.cipher) {
    cipher_algorithm_ = &cryptoaccel::algorithm(*parts.cipher);
    if (cipher_algorithm_->kind == AlgorithmKind::aead)
      aead_ = std::make_unique<AeadSession>(cipher_algorithm_->name, parts.cipher_key, options);
    else
      cipher_ = std::make_unique<CipherSession>(cipher_algorithm_->name, parts.cipher_key, options);
  }
  if (parts.hash) {
    hash_algorithm_ = &cryptoaccel::algorithm(*parts.hash);
    if (hash_algorithm_->kind == AlgorithmKind::mac)
      digest_ = std::make_unique<MacSession>(hash_algorithm_->name, parts.mac_key, options);
    else
      digest_ = std::make_unique<DigestSession>(hash_algorithm_->name, options);
  }
}

ServerSession::~ServerSession() {
  // Their owners keep the session alive until they are ready: none is left
  // unless a caller broke that, and then its keys must outlive the bursts.
  finish_started();
  secure_wipe(iv_.data(), iv_.size());
}

bool ServerSession::stream_cipher() const noexcept {
  if (null_cipher_) return true;
  if (cipher_algorithm_ == nullptr) return false;
  return cipher_algorithm_->mode == CipherMode::ctr || cipher_algorithm_->mode == CipherMode::gcm;
}

std::size_t ServerSession::block_size() const noexcept {
  if (cipher_algorithm_ == nullptr || cipher_algorithm_->mode == CipherMode::ctr) return 1;
  return cipher_algorithm_->block_size;
}

std::size_t ServerSession::iv_size() const noexcept {
  return cipher_algorithm_ != nullptr ? cipher_algorithm_->iv_size : 0;
}

std::size_t ServerSession::digest_size() const noexcept {
  return digest_ != nullptr ? digest_->size() : 0;
}

bool ServerSession::cipher_takes(std::size_t len) const noexcept {
  if (null_cipher_) return true;
  const Algorithm& a = *cipher_algorithm_;
  return len % a.input_multiple == 0 && (len == 0 || len >= a.min_input);
}

const char* ServerSession::cipher_name() const noexcept {
  if (null_cipher_) return "ecb(cipher_null)";
  return cipher_algorithm_ != nullptr ? cryptodev::generic_name(cipher_algorithm_->id) : "";
}

const char* ServerSession::hash_name() const noexcept {
  return hash_algorithm_ != nullptr ? cryptodev::generic_name(hash_algorithm_->id) : "";
}

namespace {

// The IV after a request of `in` to `out` from `iv`, as the kernel's modes
// leave it.
void advance(CipherMode mode, std::span<std::uint8_t> iv, bool encrypt,
             std::span<const std::uint8_t> in, std::span<const std::uint8_t> out) noexcept {
  switch (mode) {
    case CipherMode::cbc: {
      // The next IV is the last ciphertext block.
      const auto ciphertext = encrypt ? out : in;
      if (ciphertext.size() >= iv.size())
        std::memcpy(iv.data(), ciphertext.data() + ciphertext.size() - iv.size(), iv.size());
      break;
    }
    case CipherMode::ctr: {
      // The counter moves on by every block begun, as the kernel's ctr does.
      std::uint64_t blocks = (in.size() + 15) / 16;
      for (std::size_t i = iv.size(); i-- > 0 && blocks != 0;) {
        const std::uint64_t sum = iv[i] + (blocks & 0xff);
        iv[i] = static_cast<std::uint8_t>(sum);
        blocks = (blocks >> 8) + (sum >> 8);
      }
      break;
    }
    default:
      break;  // ECB has no IV; an XTS tweak names one data unit and is given each time
  }
}

}  // namespace

void ServerSession::advance_iv(bool encrypt, std::span<const std::uint8_t> in,
                               std::span<const std::uint8_t> out) noexcept {
  advance(cipher_algorithm_->mode, {iv_.data(), iv_size()}, encrypt, in, out);
}

int ServerSession::cipher(bool encrypt, const std::uint8_t* iv, std::span<const std::uint8_t> in,
                          std::span<std::uint8_t> out, std::uint8_t* iv_out) noexcept {
  if (null_cipher_) {
    if (!in.empty() && in.data() != out.data()) std::memmove(out.data(), in.data(), in.size());
    return 0;
  }
  if (!cipher_) return EINVAL;
  // Started requests first: this one continues from their IV, or replaces it.
  if (has_started()) finish_started();
  const std::size_t iv_size = this->iv_size();
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

int StartedCipher::error() const noexcept {
  return errno_of(request.status);
}

bool ServerSession::may_start(bool has_iv, std::uint16_t flags, std::size_t len) const noexcept {
  // WRITE_IV answers the IV after the request in the same reply; a hash
  // runs beside the cipher. Both stay on the synchronous path.
  if (!cipher_ || digest_ || !has_iv || len == 0 || (flags & cryptodev::kFlagWriteIv) != 0)
    return false;
  const CipherMode mode = cipher_algorithm_->mode;
  return mode == CipherMode::cbc || mode == CipherMode::ctr;
}

bool ServerSession::start_cipher(bool encrypt, const std::uint8_t* iv,
                                 StartedCipher& job) noexcept {
  const std::size_t iv_size = this->iv_size();
  std::memcpy(job.iv.data(), iv, iv_size);
  // Known now (the input is still there), but for CBC encryption's: its
  // last output block, taken when it has run (started_done).
  job.next_iv = job.iv;
  advance(cipher_algorithm_->mode, {job.next_iv.data(), iv_size}, encrypt, job.data, {});
  job.request = Request{.op = encrypt ? Operation::encrypt : Operation::decrypt,
                        .iv = {job.iv.data(), iv_size},
                        .in = job.data,
                        .out = job.data};
  job.ticket.on_done = started_done;
  job.ticket.user = &job;
  job.session = this;
  job.sequence = ++started_sequence_;
  job.ready.store(false, std::memory_order_relaxed);
  started_.fetch_add(1, std::memory_order_acq_rel);  // before: it may run inside start()
  if (cipher_->start({&job.request, 1}, job.ticket)) return true;
  started_.fetch_sub(1, std::memory_order_acq_rel);
  --started_sequence_;
  return false;
}

void ServerSession::started_done(AsyncTicket& ticket) noexcept {
  StartedCipher& job = *static_cast<StartedCipher*>(ticket.user);
  ServerSession& session = *job.session;
  const bool ok = job.request.status == ErrorCode::ok;
  if (ok && job.request.op == Operation::encrypt &&
      session.cipher_algorithm_->mode == CipherMode::cbc)
    advance(CipherMode::cbc, {job.next_iv.data(), session.iv_size()}, true, {}, job.data);
  if (ok) {
    std::lock_guard lock(session.iv_mutex_);
    if (job.sequence > session.iv_sequence_) {
      session.iv_ = job.next_iv;
      session.iv_sequence_ = job.sequence;
    }
  }
  const auto on_ready = job.on_ready;
  void* const context = job.ready_context;
  const std::uint64_t file = job.ready_file;
  session.started_.fetch_sub(1, std::memory_order_acq_rel);
  job.ready.store(true, std::memory_order_release);  // job and session may be gone from here
  if (on_ready != nullptr) on_ready(context, file);
}

void ServerSession::flush_started() noexcept {
  if (cipher_) cipher_->flush();
}

void ServerSession::finish_started() noexcept {
  // Another thread may be running the burst that holds ours: then only
  // waiting helps, and bursts take microseconds.
  while (has_started()) {
    flush_started();
    if (has_started()) std::this_thread::yield();
  }
}

bool ServerSession::finishes(std::uint16_t flags, std::size_t len) noexcept {
  // cryptodev-linux's rule: FINAL, or no UPDATE, or an empty request.
  return (flags & cryptodev::kFlagFinal) != 0 || (flags & cryptodev::kFlagUpdate) == 0 || len == 0;
}

void ServerSession::hash_reset() noexcept {
  if (digest_) digest_->reset();
}

namespace {

// Runs a step of the hash; a failure is the errno, and the hash is dropped.
template <class Step>
int hash_step(DigestSession& digest, Step step) noexcept {
  try {
    step();
    return 0;
  } catch (const Error& e) {
    digest.reset();
    return errno_of(e.code());
  } catch (...) {
    digest.reset();
    return EIO;
  }
}

}  // namespace

int ServerSession::hash_update(std::span<const std::uint8_t> in) noexcept {
  if (!digest_) return EINVAL;
  if (in.empty()) return 0;
  return hash_step(*digest_, [&] { digest_->update(in); });
}

int ServerSession::hash_final(std::uint8_t* out) noexcept {
  if (!digest_) return EINVAL;
  return hash_step(*digest_, [&] { digest_->final({out, digest_->size()}); });
}

int ServerSession::copy_hash_from(const ServerSession& from) noexcept {
  if (!digest_ || !from.digest_ || hash_algorithm_ != from.hash_algorithm_) return EINVAL;
  try {
    digest_ = std::make_unique<DigestSession>(from.digest_->clone());
  } catch (const Error& e) {
    return errno_of(e.code());
  } catch (...) {
    return ENOMEM;
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
