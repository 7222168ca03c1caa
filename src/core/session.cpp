#include "cryptoaccel/session.hpp"

#include <algorithm>

#include "cryptoaccel/driver/secret_bytes.hpp"
#include "request_check.hpp"
#include "session_core.hpp"

namespace cryptoaccel {

Session::Session(std::string_view name, AlgorithmKind expected, Bytes key,
                 const SessionOptions& options) {
  const Algorithm& algorithm = algorithm_or_throw(name);
  if (algorithm.kind != expected)
    throw InvalidArgument(std::string(algorithm.name) + " is a " +
                          std::string(to_string(algorithm.kind)) + ", not a " +
                          std::string(to_string(expected)));
  core_ = std::make_unique<detail::SessionCore>(algorithm, key, options);
  algorithm_ = &algorithm;
}

Session::Session(const Algorithm& algorithm, std::unique_ptr<detail::SessionCore> core)
    : algorithm_(&algorithm), core_(std::move(core)) {}

Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

std::string_view Session::last_driver() const noexcept {
  return core_->last_driver();
}

std::size_t Session::process(std::span<Request> batch) noexcept {
  const Algorithm& a = *algorithm_;
  detail::BatchSummary checked;
  if (detail::check_batch(a, batch, checked) == 0) {
    if (core_->run_batch(batch, nullptr, nullptr, nullptr, &checked) == batch.size())
      return batch.size();
  } else {
    // Requests that failed the checks are complete; the runs of valid ones
    // between them go to the dispatcher in the caller's order.
    std::size_t first = 0;
    for (std::size_t i = 0; i <= batch.size(); ++i) {
      if (i < batch.size() && batch[i].status == ErrorCode::ok) continue;
      if (i > first) core_->run_batch(batch.subspan(first, i - first), nullptr, nullptr, nullptr);
      first = i + 1;
    }
  }
  std::size_t ok = 0;
  for (Request& r : batch) {
    if (r.status == ErrorCode::ok) {
      ++ok;
    } else if (a.kind == AlgorithmKind::aead && r.op == Operation::decrypt && !r.out.empty()) {
      // No unauthenticated plaintext is ever released.
      secure_wipe(r.out.data(), std::min(r.out.size(), r.in.size()));
    } else if (a.kind == AlgorithmKind::public_key && r.op == Operation::decrypt) {
      // Nor what a wrong padding left of a decrypted ciphertext.
      secure_wipe(r.out.data(), r.out.size());
    }
  }
  return ok;
}

bool Session::start(std::span<Request> batch, AsyncTicket& ticket) noexcept {
  for (Request& r : batch) {
    r.continues = false;
    r.status = detail::check_request(*algorithm_, r);
    if (r.status != ErrorCode::ok) return false;
    if (algorithm_->kind == AlgorithmKind::cipher || algorithm_->kind == AlgorithmKind::aead) {
      r.out = r.out.first(r.in.size());
      if (detail::output_ahead_of_input(r)) detail::move_input_to_output(r);
    }
  }
  return !batch.empty() && core_->start_batch(batch, ticket);
}

void Session::flush() noexcept {
  core_->flush_started();
}

}  // namespace cryptoaccel
