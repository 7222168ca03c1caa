#include <algorithm>
#include <array>
#include <string>

#include "cryptoaccel/session.hpp"
#include "request_check.hpp"
#include "session_core.hpp"

namespace cryptoaccel {
namespace {

std::string prefix(const Algorithm& a) {
  return std::string(a.name) + ": ";
}

void check_lengths(const Algorithm& a, Bytes iv, std::size_t in, std::size_t out, std::size_t tag) {
  if (!a.iv_sizes.contains(iv.size()))
    throw InvalidIvLength(prefix(a) + "nonce of " + std::to_string(iv.size()) +
                          " bytes; it takes " + std::to_string(a.iv_sizes.min) + " to " +
                          std::to_string(a.iv_sizes.max) + " (recommended " +
                          std::to_string(a.iv_size) + ")");
  if (!a.tag_sizes.contains(tag))
    throw InvalidTagLength(prefix(a) + "tag of " + std::to_string(tag) + " bytes; it takes " +
                           std::to_string(a.tag_sizes.min) + " to " +
                           std::to_string(a.tag_sizes.max));
  if (out < in)
    throw InvalidLength(prefix(a) + "output buffer of " + std::to_string(out) +
                        " bytes is smaller than the " + std::to_string(in) + "-byte input");
}

}  // namespace

AeadSession::AeadSession(std::string_view algorithm, Bytes key, const SessionOptions& options)
    : Session(algorithm, AlgorithmKind::aead, key, options) {}

void AeadSession::seal(Bytes iv, Bytes aad, Bytes in, MutableBytes out, MutableBytes tag) {
  const Algorithm& a = algorithm();
  check_lengths(a, iv, in.size(), out.size(), tag.size());
  if (detail::output_ahead_of_input(in, out)) [[unlikely]]
    in = detail::move_input_to_output(in, out);
  Request& request = request_;
  request.op = Operation::encrypt;
  request.iv = iv;
  request.aad = aad;
  request.in = in;
  request.out = out.first(in.size());
  request.tag = tag;
  request.continues = false;
  if (const ErrorCode status = core_->run(request); status != ErrorCode::ok)
    throw_error(status, prefix(a) + std::string(to_string(status)));
}

void AeadSession::open(Bytes iv, Bytes aad, Bytes in, Bytes tag, MutableBytes out) {
  const Algorithm& a = algorithm();
  check_lengths(a, iv, in.size(), out.size(), tag.size());
  if (detail::output_ahead_of_input(in, out)) [[unlikely]]
    in = detail::move_input_to_output(in, out);
  // Drivers get their own copy of the tag: the caller's stays untouched.
  std::array<std::uint8_t, 16> expected_tag{};
  std::copy(tag.begin(), tag.end(), expected_tag.begin());
  Request request{.op = Operation::decrypt,
                  .iv = iv,
                  .aad = aad,
                  .in = in,
                  .out = out.first(in.size()),
                  .tag = MutableBytes(expected_tag).first(tag.size())};
  ErrorCode status;
  try {
    status = core_->run(request);
  } catch (...) {
    secure_wipe(out.data(), in.size());
    throw;
  }
  if (status == ErrorCode::ok) return;
  // Whatever the driver decrypted before it checked the tag is not released.
  secure_wipe(out.data(), in.size());
  if (status == ErrorCode::authentication_failed)
    throw AuthenticationFailed(prefix(a) + "authentication failed; no plaintext released");
  throw_error(status, prefix(a) + std::string(to_string(status)));
}

}  // namespace cryptoaccel
