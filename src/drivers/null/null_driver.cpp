// The `null` driver does no cryptography: every request completes at once,
// its output untouched. Pinned, it measures what the framework itself costs
// per request. It is never chosen automatically and never self-tested.
#include <limits>
#include <vector>

#include "cryptoaccel/driver/driver.hpp"

namespace cryptoaccel {
namespace {

class NullStream final : public DigestStream {
 public:
  ErrorCode update(std::span<const std::uint8_t>) noexcept override { return ErrorCode::ok; }
  ErrorCode final(std::span<std::uint8_t>) noexcept override { return ErrorCode::ok; }
};

class NullSession final : public DriverSession {
 public:
  std::size_t process(std::span<Request> batch) noexcept override {
    for (Request& r : batch) r.status = ErrorCode::ok;
    return batch.size();
  }
  void process_one(Request& r) noexcept override { r.status = ErrorCode::ok; }
  std::unique_ptr<DigestStream> open_stream() override { return std::make_unique<NullStream>(); }
};

class NullDriver final : public Driver {
 public:
  NullDriver() {
    for (const Algorithm& a : algorithms())
      capabilities_.push_back(Capability{.algorithm = a.id,
                                         .key_sizes = a.key_size,
                                         .iv_sizes = a.iv_sizes,
                                         .tag_sizes = a.tag_sizes,
                                         .max_request = std::numeric_limits<std::size_t>::max()});
  }
  std::string_view name() const noexcept override { return "null"; }
  std::string description() const override {
    return "no cryptography: measures the framework's own cost (pin it with --driver null)";
  }
  DriverTraits traits() const noexcept override {
    return DriverTraits{.kind = DriverKind::software,
                        .priority = 0,
                        .automatic = false,
                        .self_test = false,
                        .max_in_flight = 1};
  }
  std::span<const Capability> capabilities() const noexcept override { return capabilities_; }
  std::unique_ptr<DriverSession> open_session(const Algorithm&,
                                              std::span<const std::uint8_t>) override {
    return std::make_unique<NullSession>();
  }

 private:
  std::vector<Capability> capabilities_;
};

}  // namespace

DriverProbe probe_null_driver(std::string_view /*setting*/) {
  DriverProbe probe;
  probe.drivers.push_back(std::make_unique<NullDriver>());
  return probe;
}

}  // namespace cryptoaccel
