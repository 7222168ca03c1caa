#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "cryptoaccel/session.hpp"
#include "session_core.hpp"

namespace cryptoaccel {
namespace {

constexpr std::size_t kCtrBlock = 16;

std::string prefix(const Algorithm& a) {
  return std::string(a.name) + ": ";
}

// Adds `blocks` to a big-endian 128-bit counter, as OpenSSL and the kernel do.
void add_to_counter(std::span<std::uint8_t> counter, std::uint64_t blocks) {
  for (std::size_t i = counter.size(); i-- > 0 && blocks != 0;) {
    const std::uint64_t sum = counter[i] + (blocks & 0xff);
    counter[i] = static_cast<std::uint8_t>(sum);
    blocks = (blocks >> 8) + (sum >> 8);
  }
}

}  // namespace

CipherSession::CipherSession(std::string_view algorithm, Bytes key, const SessionOptions& options)
    : Session(algorithm, AlgorithmKind::cipher, key, options) {}

void CipherSession::run(Direction direction, Bytes iv, Bytes in, MutableBytes out) {
  const Algorithm& a = algorithm();
  if (!a.iv_sizes.contains(iv.size()))
    throw InvalidIvLength(prefix(a) + "IV must be " + std::to_string(a.iv_size) + " bytes, not " +
                          std::to_string(iv.size()));
  if (out.size() < in.size())
    throw InvalidLength(prefix(a) + "output buffer of " + std::to_string(out.size()) +
                        " bytes is smaller than the " + std::to_string(in.size()) + "-byte input");
  if (in.size() % a.input_multiple != 0)
    throw InvalidLength(prefix(a) + "input of " + std::to_string(in.size()) +
                        " bytes is not a multiple of the " + std::to_string(a.input_multiple) +
                        "-byte block (no padding is applied)");
  if (in.size() < a.min_input)
    throw InvalidLength(prefix(a) + "input must be at least " + std::to_string(a.min_input) +
                        " bytes, not " + std::to_string(in.size()));
  Request request{.op = direction == Direction::encrypt ? Operation::encrypt : Operation::decrypt,
                  .iv = iv,
                  .in = in,
                  .out = out.first(in.size())};
  if (const ErrorCode status = core_->run(request); status != ErrorCode::ok)
    throw_error(status, prefix(a) + std::string(to_string(status)));
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
  stream_iv_.assign(iv.begin(), iv.end());
  stream_offset_ = 0;
  streaming_ = true;
}

void CipherSession::update(Bytes in, MutableBytes out) {
  const Algorithm& a = algorithm();
  if (!streaming_) throw InvalidArgument(prefix(a) + "update() before begin()");
  if (out.size() < in.size())
    throw InvalidLength(prefix(a) + "output buffer of " + std::to_string(out.size()) +
                        " bytes is smaller than the " + std::to_string(in.size()) + "-byte input");
  if (in.empty()) return;

  if (a.mode == CipherMode::cbc) {
    // The next IV is the last ciphertext block; on decryption it must be
    // saved before an in-place call overwrites it.
    std::array<std::uint8_t, 16> next{};
    const std::size_t block = a.block_size;
    const bool has_block = in.size() >= block && in.size() % a.input_multiple == 0;
    if (has_block && stream_direction_ == Direction::decrypt)
      std::memcpy(next.data(), in.data() + in.size() - block, block);
    run(stream_direction_, stream_iv_, in, out);
    if (stream_direction_ == Direction::encrypt)
      std::memcpy(next.data(), out.data() + in.size() - block, block);
    std::memcpy(stream_iv_.data(), next.data(), block);
    return;
  }
  if (a.mode != CipherMode::ctr) {  // ECB: no chaining
    run(stream_direction_, stream_iv_, in, out);
    return;
  }

  // CTR: finish a partly used keystream block first, by running the whole
  // counter block over the input placed at its offset.
  std::size_t done = 0;
  if (stream_offset_ != 0) {
    std::array<std::uint8_t, kCtrBlock> block{};
    const std::size_t take = std::min(in.size(), kCtrBlock - stream_offset_);
    std::memcpy(block.data() + stream_offset_, in.data(), take);
    run(stream_direction_, stream_iv_, block, block);
    std::memcpy(out.data(), block.data() + stream_offset_, take);
    secure_wipe(block.data(), block.size());
    done = take;
    stream_offset_ += take;
    if (stream_offset_ == kCtrBlock) {
      add_to_counter(stream_iv_, 1);
      stream_offset_ = 0;
    }
  }
  const std::size_t rest = in.size() - done;
  if (rest == 0) return;
  run(stream_direction_, stream_iv_, in.subspan(done), out.subspan(done, rest));
  add_to_counter(stream_iv_, rest / kCtrBlock);
  stream_offset_ = rest % kCtrBlock;
}

}  // namespace cryptoaccel
