#include <string>

#include "cryptoaccel/session.hpp"
#include "session_core.hpp"

namespace cryptoaccel {

namespace detail {
// A running update/final stream: which driver holds its state, and how much
// it has taken (for the usage counters).
struct StreamState {
  SessionCore::Stream stream;
  std::size_t bytes = 0;
};
}  // namespace detail

namespace {
std::string prefix(const Algorithm& a) {
  return std::string(a.name) + ": ";
}
}  // namespace

DigestSession::DigestSession(std::string_view algorithm, const SessionOptions& options)
    : DigestSession(algorithm, AlgorithmKind::digest, {}, options) {}

DigestSession::DigestSession(std::string_view algorithm, AlgorithmKind kind, Bytes key,
                             const SessionOptions& options)
    : Session(algorithm, kind, key, options) {}

DigestSession::DigestSession(const Algorithm& algorithm, std::unique_ptr<detail::SessionCore> core)
    : Session(algorithm, std::move(core)) {}

void DigestSession::reset() noexcept {
  stream_.reset();
}

DigestSession DigestSession::clone() const {
  DigestSession copy(algorithm(), core_->clone());
  if (stream_) {
    auto stream = stream_->stream.stream->clone();
    if (!stream)
      throw Unsupported(prefix(algorithm()) + "driver '" + stream_->stream.driver->name +
                        "' cannot copy a running digest");
    copy.stream_ = std::make_unique<detail::StreamState>(
        detail::StreamState{{std::move(stream), stream_->stream.driver}, stream_->bytes});
  }
  return copy;
}

DigestSession::~DigestSession() = default;
DigestSession::DigestSession(DigestSession&&) noexcept = default;
DigestSession& DigestSession::operator=(DigestSession&&) noexcept = default;

std::size_t DigestSession::size() const noexcept {
  return algorithm().output_size;
}

void DigestSession::digest(Bytes in, MutableBytes out) {
  const Algorithm& a = algorithm();
  if (out.size() != a.output_size)
    throw InvalidLength(prefix(a) + "output must be " + std::to_string(a.output_size) +
                        " bytes, not " + std::to_string(out.size()));
  Request& request = request_;
  request.op = Operation::digest;
  request.iv = {};
  request.in = in;
  request.out = out;
  request.continues = false;
  if (const ErrorCode status = core_->run(request); status != ErrorCode::ok)
    throw_error(status, prefix(a) + std::string(to_string(status)));
}

std::vector<std::uint8_t> DigestSession::digest(Bytes in) {
  std::vector<std::uint8_t> out(size());
  digest(in, out);
  return out;
}

void DigestSession::update(Bytes in) {
  if (!stream_)
    stream_ = std::make_unique<detail::StreamState>(detail::StreamState{core_->open_stream(), 0});
  if (const ErrorCode status = stream_->stream.stream->update(in); status != ErrorCode::ok) {
    core_->record(stream_->stream.driver, 0, true);
    stream_.reset();
    throw_error(status, prefix(algorithm()) + "update failed: " + std::string(to_string(status)));
  }
  stream_->bytes += in.size();
}

void DigestSession::final(MutableBytes out) {
  const Algorithm& a = algorithm();
  if (out.size() != a.output_size)
    throw InvalidLength(prefix(a) + "output must be " + std::to_string(a.output_size) +
                        " bytes, not " + std::to_string(out.size()));
  if (!stream_) update({});
  auto state = std::move(stream_);
  const ErrorCode status = state->stream.stream->final(out);
  core_->record(state->stream.driver, state->bytes, status != ErrorCode::ok);
  if (status != ErrorCode::ok)
    throw_error(status, prefix(a) + "final failed: " + std::string(to_string(status)));
}

std::vector<std::uint8_t> DigestSession::final() {
  std::vector<std::uint8_t> out(size());
  final(out);
  return out;
}

MacSession::MacSession(std::string_view algorithm, Bytes key, const SessionOptions& options)
    : DigestSession(algorithm, AlgorithmKind::mac, key, options) {}

}  // namespace cryptoaccel
