// The checks every request passes before any driver sees it, as status codes
// for the asynchronous API (sessions throw the same findings with messages).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>

#include "cryptoaccel/algorithm.hpp"
#include "cryptoaccel/request.hpp"

namespace cryptoaccel::detail {

// RSA: the lengths every driver relies on (RsaSession checks the rest, with
// messages): a whole modulus out of sign and encrypt, into decrypt, and the
// signature to verify.
inline ErrorCode check_public_key(const Algorithm& a, const Request& r) noexcept {
  if (r.rsa == nullptr || !r.iv.empty() || !r.aad.empty()) return ErrorCode::invalid_argument;
  const std::size_t n = a.output_size;
  switch (r.op) {
    case Operation::sign:
      return r.out.size() == n && r.in.size() < n && r.tag.empty() ? ErrorCode::ok
                                                                   : ErrorCode::invalid_length;
    case Operation::verify:
      return r.tag.size() == n && r.in.size() < n ? ErrorCode::ok : ErrorCode::invalid_length;
    case Operation::encrypt:
      return r.out.size() == n && r.in.size() < n && r.tag.empty() ? ErrorCode::ok
                                                                   : ErrorCode::invalid_length;
    case Operation::decrypt:
      return r.in.size() == n && r.out.size() == n && r.tag.empty() ? ErrorCode::ok
                                                                    : ErrorCode::invalid_length;
    case Operation::digest:
      break;
  }
  return ErrorCode::invalid_argument;
}

// Does the output begin inside the input, after its first byte? A driver
// that writes as it reads would then read bytes it has already written
// (EVP does, for CBC, CTR, GCM and ChaCha20-Poly1305): such a request gets
// its input moved to the output first and runs in place, so that every
// driver gives the cipher of the input. (The provider makes such requests:
// an update in place after bytes were held back.)
inline bool output_ahead_of_input(std::span<const std::uint8_t> in,
                                  std::span<const std::uint8_t> out) noexcept {
  const auto from = reinterpret_cast<std::uintptr_t>(in.data());
  const auto to = reinterpret_cast<std::uintptr_t>(out.data());
  return to > from && to - from < in.size();
}
inline bool output_ahead_of_input(const Request& r) noexcept {
  return output_ahead_of_input(r.in, r.out);
}

// Moves the input to where the output begins; the input is then those bytes.
inline std::span<const std::uint8_t> move_input_to_output(std::span<const std::uint8_t> in,
                                                          std::span<std::uint8_t> out) noexcept {
  std::memmove(out.data(), in.data(), in.size());
  return {out.data(), in.size()};
}
inline void move_input_to_output(Request& r) noexcept {
  r.in = move_input_to_output(r.in, r.out);
}

// A request's checks come in two parts: its shape (the operation and the
// lengths of its IV, tag, AAD and, for a digest, output), which a batch's
// requests mostly share, and its own input and output lengths. A failed
// shape check is reported first.
template <AlgorithmKind kind>
inline ErrorCode check_shape_as(const Algorithm& a, const Request& r) noexcept {
  switch (kind) {
    case AlgorithmKind::cipher:
      if (r.op != Operation::encrypt && r.op != Operation::decrypt)
        return ErrorCode::invalid_argument;
      if (!a.iv_sizes.contains(r.iv.size())) return ErrorCode::invalid_iv_length;
      if (!r.tag.empty() || !r.aad.empty()) return ErrorCode::invalid_length;
      return ErrorCode::ok;
    case AlgorithmKind::aead:
      if (r.op != Operation::encrypt && r.op != Operation::decrypt)
        return ErrorCode::invalid_argument;
      if (!a.iv_sizes.contains(r.iv.size())) return ErrorCode::invalid_iv_length;
      if (!a.tag_sizes.contains(r.tag.size())) return ErrorCode::invalid_tag_length;
      return ErrorCode::ok;
    case AlgorithmKind::digest:
    case AlgorithmKind::mac:
      if (r.op != Operation::digest) return ErrorCode::invalid_argument;
      if (r.out.size() != a.output_size || !r.iv.empty() || !r.tag.empty())
        return ErrorCode::invalid_length;
      return ErrorCode::ok;
    case AlgorithmKind::public_key:
      return check_public_key(a, r);
  }
  return ErrorCode::invalid_argument;
}

template <AlgorithmKind kind>
inline ErrorCode check_lengths_as(const Algorithm& a, const Request& r) noexcept {
  switch (kind) {
    case AlgorithmKind::cipher:
      return r.out.size() < r.in.size() || (r.in.size() & (a.input_multiple - 1)) != 0 ||
                     r.in.size() < a.min_input
                 ? ErrorCode::invalid_length
                 : ErrorCode::ok;
    case AlgorithmKind::aead:
      return r.out.size() < r.in.size() ? ErrorCode::invalid_length : ErrorCode::ok;
    default:
      return ErrorCode::ok;  // a digest's lengths are its shape; RSA's, check_public_key's
  }
}

template <AlgorithmKind kind>
inline ErrorCode check_as(const Algorithm& a, const Request& r) noexcept {
  const ErrorCode shape = check_shape_as<kind>(a, r);
  return shape != ErrorCode::ok ? shape : check_lengths_as<kind>(a, r);
}

inline ErrorCode check_request(const Algorithm& a, const Request& r) noexcept {
  switch (a.kind) {
    case AlgorithmKind::cipher:
      return check_as<AlgorithmKind::cipher>(a, r);
    case AlgorithmKind::aead:
      return check_as<AlgorithmKind::aead>(a, r);
    case AlgorithmKind::digest:
      return check_as<AlgorithmKind::digest>(a, r);
    case AlgorithmKind::mac:
      return check_as<AlgorithmKind::mac>(a, r);
    case AlgorithmKind::public_key:
      return check_public_key(a, r);
  }
  return ErrorCode::invalid_argument;
}

// What check_batch learnt of a batch in its one pass over the requests,
// so that the dispatcher can tell whether a driver takes the whole batch
// without a pass of its own over it (at 256 bytes, that pass cost the
// dpdk driver 5% of its throughput): whether every request has the first
// one's shape, and the range of their input lengths.
struct BatchSummary {
  bool uniform = true;  // every request has batch[0]'s shape (check_shape_as)
  std::size_t smallest_input = std::numeric_limits<std::size_t>::max(), largest_input = 0;
  std::size_t input_bits = 0;  // every input length or'ed: a power-of-two multiple test
  std::uint64_t input_bytes = 0;
};

// Checks a batch, sets each request's status and trims a cipher's output to
// its input, returning how many failed. The kind is decided once per batch:
// deciding it per request cost a 256-byte burst of 16 on mb 2%. The first
// request's shape is checked once: a request of the same shape has the
// same verdict on it, and needs only its own lengths checked.
template <AlgorithmKind kind>
std::size_t check_batch_as(const Algorithm& algorithm, std::span<Request> batch,
                           BatchSummary& summary) noexcept {
  // Copies the requests cannot alias: the limits and the first request's
  // shape stay in registers instead of being loaded again after every
  // store to a request.
  const Algorithm a = algorithm;
  std::size_t invalid = 0;
  BatchSummary s;
  if (batch.empty()) {
    summary = s;
    return 0;
  }
  const Request& first = batch.front();
  const auto op = static_cast<std::size_t>(first.op);
  const std::size_t iv = first.iv.size(), tag = first.tag.size(), aad = first.aad.size();
  const std::size_t out = first.out.size();
  const ErrorCode shape = check_shape_as<kind>(a, first);
  for (Request& r : batch) {
    r.continues = false;
    std::size_t differs = (static_cast<std::size_t>(r.op) ^ op) | (r.iv.size() ^ iv) |
                          (r.tag.size() ^ tag) | (r.aad.size() ^ aad);
    if constexpr (kind == AlgorithmKind::digest || kind == AlgorithmKind::mac)
      differs |= r.out.size() ^ out;
    ErrorCode status;
    if (kind != AlgorithmKind::public_key && differs == 0) {
      status = shape != ErrorCode::ok ? shape : check_lengths_as<kind>(a, r);
    } else {
      s.uniform = false;
      status = check_as<kind>(a, r);
    }
    r.status = status;
    const std::size_t in = r.in.size();
    s.smallest_input = std::min(s.smallest_input, in);
    s.largest_input = std::max(s.largest_input, in);
    s.input_bits |= in;
    s.input_bytes += in;
    if (status != ErrorCode::ok) {
      ++invalid;
    } else if constexpr (kind == AlgorithmKind::cipher || kind == AlgorithmKind::aead) {
      r.out = r.out.first(in);
      if (output_ahead_of_input(r)) [[unlikely]]
        move_input_to_output(r);
    }
  }
  summary = s;
  return invalid;
}

inline std::size_t check_batch(const Algorithm& a, std::span<Request> batch,
                               BatchSummary& summary) noexcept {
  switch (a.kind) {
    case AlgorithmKind::cipher:
      return check_batch_as<AlgorithmKind::cipher>(a, batch, summary);
    case AlgorithmKind::aead:
      return check_batch_as<AlgorithmKind::aead>(a, batch, summary);
    case AlgorithmKind::digest:
      return check_batch_as<AlgorithmKind::digest>(a, batch, summary);
    case AlgorithmKind::mac:
      return check_batch_as<AlgorithmKind::mac>(a, batch, summary);
    case AlgorithmKind::public_key:
      return check_batch_as<AlgorithmKind::public_key>(a, batch, summary);
  }
  return batch.size();
}

}  // namespace cryptoaccel::detail
