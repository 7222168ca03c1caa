#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "cryptoaccel/session.hpp"
#include "request_check.hpp"
#include "session_core.hpp"

namespace cryptoaccel {
namespace {

// The largest keystream block (ChaCha20's); AES-CTR's is 16 bytes.
constexpr std::size_t kMaxKeystreamBlock = 64;

std::string prefix(const Algorithm& a) {
  return std::string(a.name) + ": ";
}

bool keystream_mode(CipherMode mode) {
  return mode == CipherMode::ctr || mode == CipherMode::chacha20;
}

// A DES (8) or AES (16) block: fixed-size copies compile to a few moves.
void copy_block(std::uint8_t* to, const std::uint8_t* from, std::size_t block) {
  if (block == 16)
    std::memcpy(to, from, 16);
  else
    std::memcpy(to, from, 8);
}

// The error paths, out of line: building their messages needs registers and
// stack that the hot path of update() should not pay for.
[[noreturn, gnu::cold, gnu::noinline]] void throw_status(const Algorithm& a, ErrorCode status) {
  throw_error(status, prefix(a) + std::string(to_string(status)));
}

[[noreturn, gnu::cold, gnu::noinline]] void refuse_update(const Algorithm& a, bool streaming,
                                                          std::size_t in, std::size_t out) {
  if (!streaming) throw InvalidArgument(prefix(a) + "update() before begin()");
  throw InvalidLength(prefix(a) + "output buffer of " + std::to_string(out) +
                      " bytes is smaller than the " + std::to_string(in) + "-byte input");
}

}  // namespace

CipherSession::CipherSession(std::string_view algorithm, Bytes key, const SessionOptions& options)
    : Session(algorithm, AlgorithmKind::cipher, key, options) {}

// Inlined into update(): it is the hot path of every streamed request. The
// request lives in the session, so only what changes is written: zeroing a
// whole Request per call costs more than a small request's cryptography.
[[gnu::always_inline]] inline void CipherSession::submit(Direction direction, Bytes iv, Bytes in,
                                                         MutableBytes out, bool continues) {
  Request& request = request_;
  request.op = direction == Direction::encrypt ? Operation::encrypt : Operation::decrypt;
  request.iv = iv;
  request.in = in;
  request.out = out.first(in.size());
  request.continues = continues;
  if (const ErrorCode status = core_->run(request); status != ErrorCode::ok) [[unlikely]]
    throw_status(algorithm(), status);
}

void CipherSession::run(Direction direction, Bytes iv, Bytes in, MutableBytes out, bool continues) {
  const Algorithm& a = algorithm();
  // A one-shot request (or a stream's own partial block) re-keys the
  // driver's chain: only update() sets it back once its request succeeded.
  stream_chained_ = false;
  if (!a.iv_sizes.contains(iv.size()))
    throw InvalidIvLength(prefix(a) + "IV must be " + std::to_string(a.iv_size) + " bytes, not " +
                          std::to_string(iv.size()));
  if (out.size() < in.size())
    throw InvalidLength(prefix(a) + "output buffer of " + std::to_string(out.size()) +
                        " bytes is smaller than the " + std::to_string(in.size()) + "-byte input");
  // input_multiple is a power of two (1, 8, 16): a mask, not a division.
  if ((in.size() & (a.input_multiple - 1)) != 0)
    throw InvalidLength(prefix(a) + "input of " + std::to_string(in.size()) +
                        " bytes is not a multiple of the " + std::to_string(a.input_multiple) +
                        "-byte block (no padding is applied)");
  if (in.size() < a.min_input)
    throw InvalidLength(prefix(a) + "input must be at least " + std::to_string(a.min_input) +
                        " bytes, not " + std::to_string(in.size()));
  if (detail::output_ahead_of_input(in, out)) [[unlikely]]
    in = detail::move_input_to_output(in, out);
  if (a.mode == CipherMode::chacha20) [[unlikely]] {
    // RFC 8439's block counter is 32 bits and drivers part where it would
    // wrap: the kernel wraps it, OpenSSL carries into the nonce. A request
    // that crosses the wrap is cut there, so every driver gives OpenSSL's
    // answer.
    const std::uint64_t counter = std::uint64_t{iv[0]} | std::uint64_t{iv[1]} << 8 |
                                  std::uint64_t{iv[2]} << 16 | std::uint64_t{iv[3]} << 24;
    const std::uint64_t to_wrap = ((std::uint64_t{1} << 32) - counter) * a.block_size;
    if (in.size() > to_wrap) {
      const auto first = static_cast<std::size_t>(to_wrap);
      submit(direction, iv, in.first(first), out.first(first), continues);
      std::array<std::uint8_t, 16> next{};
      std::copy(iv.begin(), iv.end(), next.begin());
      advance_counter(a, next, to_wrap / a.block_size);
      submit(direction, {next.data(), iv.size()}, in.subspan(first), out.subspan(first), false);
      return;
    }
  }
  submit(direction, iv, in, out, continues);
}

void CipherSession::encrypt(Bytes iv, Bytes in, MutableBytes out) {
  run(Direction::encrypt, iv, in, out);
}

void CipherSession::decrypt(Bytes iv, Bytes in, MutableBytes out) {
  run(Direction::decrypt, iv, in, out);
}

std::vector<std::uint8_t> CipherSession::encrypt(Bytes iv, Bytes in) {
  std::vector<std::uint8_t> out(in.size());
  run(Direction::encrypt, iv, in, out);
  return out;
}

std::vector<std::uint8_t> CipherSession::decrypt(Bytes iv, Bytes in) {
  std::vector<std::uint8_t> out(in.size());
  run(Direction::decrypt, iv, in, out);
  return out;
}

void CipherSession::begin(Direction direction, Bytes iv) {
  const Algorithm& a = algorithm();
  if (a.mode == CipherMode::xts)
    throw Unsupported(prefix(a) + "XTS takes one whole data unit per call: use encrypt/decrypt");
  if (!a.iv_sizes.contains(iv.size()))
    throw InvalidIvLength(prefix(a) + "IV must be " + std::to_string(a.iv_size) + " bytes, not " +
                          std::to_string(iv.size()));
  stream_direction_ = direction;
  std::copy(iv.begin(), iv.end(), stream_iv_.begin());
  stream_offset_ = 0;
  stream_chained_ = false;
  streaming_ = true;
}

void CipherSession::update(Bytes in, MutableBytes out) {
  const Algorithm& a = algorithm();
  if (!streaming_ || out.size() < in.size()) [[unlikely]]
    refuse_update(a, streaming_, in.size(), out.size());
  if (in.empty()) return;
  const Bytes iv(stream_iv_.data(), a.iv_size);
  const bool continues = stream_chained_;
  stream_chained_ = false;  // until this request has succeeded

  if (a.mode == CipherMode::cbc) {
    const std::size_t block = a.block_size;
    if ((in.size() & (block - 1)) != 0) run(stream_direction_, iv, in, out);  // throws why
    // The next IV is the last ciphertext block; on decryption it must be
    // saved before an in-place call overwrites it.
    if (stream_direction_ == Direction::encrypt) {
      submit(stream_direction_, iv, in, out, continues);
      copy_block(stream_iv_.data(), out.data() + in.size() - block, block);
    } else {
      std::array<std::uint8_t, 16> next{};
      copy_block(next.data(), in.data() + in.size() - block, block);
      submit(stream_direction_, iv, in, out, continues);
      copy_block(stream_iv_.data(), next.data(), block);
    }
  } else if (keystream_mode(a.mode)) {
    update_keystream(in, out, continues);
    if (stream_offset_ != 0) return;  // the driver's counter is mid-block
  } else {                            // ECB: no chaining
    run(stream_direction_, iv, in, out);
  }
  stream_chained_ = true;
}

// CTR and ChaCha20: the IV is a counter of keystream blocks, so a stream
// continues from any byte by its counter and the offset inside its block.
void CipherSession::update_keystream(Bytes in, MutableBytes out, bool continues) {
  const Algorithm& a = algorithm();
  const std::size_t block_size = a.block_size;
  const Bytes iv(stream_iv_.data(), a.iv_size);
  std::size_t done = 0;
  if (stream_offset_ != 0) {
    // Finish the partly used keystream block first, by running the whole
    // counter block over the input placed at its offset.
    std::array<std::uint8_t, kMaxKeystreamBlock> block{};
    const std::size_t take = std::min(in.size(), block_size - stream_offset_);
    std::memcpy(block.data() + stream_offset_, in.data(), take);
    run(stream_direction_, iv, {block.data(), block_size}, {block.data(), block_size});
    std::memcpy(out.data(), block.data() + stream_offset_, take);
    secure_wipe(block.data(), block.size());
    done = take;
    stream_offset_ += take;
    if (stream_offset_ == block_size) {
      advance_counter(a, stream_iv_, 1);
      stream_offset_ = 0;
    }
  }
  const std::size_t rest = in.size() - done;
  if (rest == 0) return;
  // Only a request that starts where the driver's chain stopped continues it.
  run(stream_direction_, iv, in.subspan(done), out.subspan(done, rest), continues && done == 0);
  advance_counter(a, stream_iv_, rest / block_size);
  stream_offset_ = rest % block_size;
}

}  // namespace cryptoaccel
