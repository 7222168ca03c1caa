#include "cryptoaccel/session.hpp"

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

}  // namespace cryptoaccel
