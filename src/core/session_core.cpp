#include "session_core.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

namespace cryptoaccel::detail {
namespace {

std::string sizes(const SizeRange& r) {
  return r.min == r.max ? std::to_string(r.min)
                        : std::to_string(r.min) + " to " + std::to_string(r.max);
}

void check_key(const Algorithm& algorithm, Bytes key) {
  if (!algorithm.key_size.contains(key.size()))
    throw InvalidKeyLength(std::string(algorithm.name) + " takes a key of " +
                           sizes(algorithm.key_size) + " bytes, not " + std::to_string(key.size()));
  // IEEE 1619 / SP 800-38E: the two halves of an XTS key must differ.
  if (algorithm.mode == CipherMode::xts &&
      std::memcmp(key.data(), key.data() + key.size() / 2, key.size() / 2) == 0)
    throw InvalidKey(std::string(algorithm.name) + " key halves must differ");
}

// Why `driver` cannot serve sessions of `algorithm` with this key, or
// nothing when it can.
std::optional<std::string> refusal(const RegisteredDriver& driver, const Algorithm& algorithm,
                                   Bytes key) {
  const Capability* capability = driver.enabled[index_of(algorithm.id)];
  if (capability == nullptr) {
    std::string why = "driver '" + driver.name + "' does not offer " + std::string(algorithm.name);
    for (const auto& t : driver.self_tests)
      if (t.algorithm == algorithm.id) why += ": disabled, self-test failed: " + t.detail;
    return why;
  }
  if (!capability->key_sizes.contains(key.size()))
    return "driver '" + driver.name + "' takes " + std::string(algorithm.name) + " keys of " +
           sizes(capability->key_sizes) + " bytes, not " + std::to_string(key.size());
  return std::nullopt;
}

// The first driver of the preference that can serve the session; null for
// the dispatcher (no preference, or none can and the options fall back).
RegisteredDriver* preferred_driver(Registry& registry, const Algorithm& algorithm, Bytes key,
                                   const SessionOptions& options) {
  std::optional<std::string> first_refusal;
  bool key_refused = false;
  for (const std::string& name : options.driver.drivers()) {
    RegisteredDriver* driver = registry.find(name);
    if (driver == nullptr)
      throw NotFound("no driver named '" + name + "' (`cryptoaccel list` shows the drivers)");
    std::optional<std::string> why = refusal(*driver, algorithm, key);
    if (!why) return driver;
    if (!first_refusal) {
      first_refusal = std::move(why);
      key_refused = driver->enabled[index_of(algorithm.id)] != nullptr;
    }
  }
  if (!first_refusal || options.fall_back) return nullptr;
  if (key_refused) throw InvalidKeyLength(*first_refusal);
  throw Unsupported(*first_refusal);
}

}  // namespace

SessionCore::SessionCore(const Algorithm& algorithm, Bytes key, const SessionOptions& options)
    : framework_((options.framework ? *options.framework : Framework::global()).impl()),
      algorithm_(algorithm) {
  check_key(algorithm, key);
  pinned_ = preferred_driver(framework_.registry, algorithm, key, options);
  falls_back_ = options.fall_back;
  key_.assign(key);
  slots_.resize(framework_.registry.drivers().size());
}

SessionCore::SessionCore(const SessionCore& other, Bytes key)
    : framework_(other.framework_),
      algorithm_(other.algorithm_),
      key_(key),
      pinned_(other.pinned_),
      falls_back_(other.falls_back_),
      slots_(other.slots_.size()) {}

std::unique_ptr<SessionCore> SessionCore::clone() const {
  return std::unique_ptr<SessionCore>(new SessionCore(*this, key_.span()));
}

SessionCore::~SessionCore() {
  flush_usage();
}

void SessionCore::candidates(std::size_t size, std::vector<RegisteredDriver*>& out,
                             bool follow_pin) const {
  out.clear();
  if (pinned_ != nullptr && follow_pin) {
    out.push_back(pinned_);  // pinned: whatever its health
    return;
  }
  const auto all = framework_.dispatcher.candidates(algorithm_.id, size);
  for (RegisteredDriver* d : all)
    if (!d->health.quarantined()) out.push_back(d);
  // Equivalent hardware instances at the head share the load: the one with
  // the least outstanding work goes first (ties: the one chosen least).
  const std::size_t peers = framework_.dispatcher.peers(algorithm_.id, size);
  if (peers > 1) {
    const auto peer_set = all.first(peers);
    std::size_t available = 0;  // peers not in quarantine, at the front of `out`
    while (available < out.size() &&
           std::find(peer_set.begin(), peer_set.end(), out[available]) != peer_set.end())
      ++available;
    const auto load = [](const RegisteredDriver* d) {
      return std::pair(d->load.outstanding_bytes.load(std::memory_order_relaxed),
                       d->load.times_chosen.load(std::memory_order_relaxed));
    };
    auto least = out.begin();
    for (auto it = out.begin(); it != out.begin() + static_cast<std::ptrdiff_t>(available); ++it)
      if (load(*it) < load(*least)) least = it;
    if (available > 1) std::rotate(out.begin(), least, least + 1);
  }
  // Quarantined drivers stay as a last resort, in order.
  for (RegisteredDriver* d : all)
    if (d->health.quarantined()) out.push_back(d);
}

DriverSession* SessionCore::session_for(RegisteredDriver& driver) {
  Slot& slot = slots_[driver.index];
  if (slot.session) return slot.session.get();
  if (slot.unusable) return nullptr;
  try {
    slot.session = driver.driver->open_session(algorithm_, key_.span());
  } catch (const Error& e) {
    if (holds_to(driver)) throw;
    // A driver that cannot take this key (soft and a key in the kernel
    // keyring, a size a device lacks) declines it; only a broken driver has
    // failed.
    if (e.code() == ErrorCode::driver_failure) ++slot.failures;
  }
  if (!slot.session) slot.unusable = true;
  return slot.session.get();
}

SessionCore::Attempt SessionCore::attempt(RegisteredDriver& driver, DriverSession& session,
                                          Request& request) {
  request.continues = request.continues && &session == last_session_;
  request.status = ErrorCode::ok;
  {
    const InFlightCount in_flight(driver, 1);
    session.process_one(request);
  }
  if (request.status == ErrorCode::unsupported && !holds_to(driver) &&
      driver.enabled[index_of(algorithm_.id)]->operations != kEveryOperation) {
    request.status = ErrorCode::ok;
    return Attempt::declined;
  }
  if (request.status != ErrorCode::driver_failure) {
    driver.health.succeeded();
    count(&driver, request.in.size());
    last_session_ = &session;
    return Attempt::served;
  }
  ++slots_[driver.index].failures;
  driver.health.failed();
  last_session_ = nullptr;
  return Attempt::failed;
}

ErrorCode SessionCore::run_after_failure(Request& request) {
  ++slots_[route_.driver->index].failures;
  route_.driver->health.failed();
  return reroute_after_failure(request);
}

ErrorCode SessionCore::reroute_after_failure(Request& request) {
  route_ = {};
  last_session_ = nullptr;
  // A pinned driver is never swapped; an in-place request may have lost its
  // input to the failed driver.
  if (pinned_ != nullptr || overlaps(request)) throw_failure(pinned_ != nullptr);
  return run_routed(request);
}

void SessionCore::add_overflow(const Request& request) {
  const Dispatcher::Overflow overflow =
      framework_.dispatcher.overflow(algorithm_.id, request.in.size());
  if (overflow.software == nullptr) return;
  const Capability* capability = overflow.software->enabled[index_of(algorithm_.id)];
  if (!covers(*capability, request) || !capability->key_sizes.contains(key_.size())) return;
  DriverSession* session = session_for(*overflow.software);
  if (session == nullptr) return;
  route_.overflow = overflow.software;
  route_.overflow_session = session;
  route_.overflow_at = overflow.at_in_flight;
  route_.overflow_while_shared = overflow.while_shared;
}

// Does this request go to the route's overflow rather than the device?
bool SessionCore::overflows_to_software(RegisteredDriver& device) const noexcept {
  if (route_.overflow == nullptr) return false;
  const std::uint32_t in_flight = device.load.in_flight.load(std::memory_order_relaxed);
  bool to_software = in_flight >= route_.overflow_at;  // software is sooner than the wait
  if (route_.overflow_while_shared) {
    // Under load software serves more than the device: while other threads
    // use the device too, every request goes to software. The window lets
    // the device's own requests finish and is then tried again.
    const auto now = DriverHealth::Clock::now().time_since_epoch();
    if (in_flight != 0) {
      device.load.shared_until.store((now + kSharedWindow).count(), std::memory_order_relaxed);
      to_software = true;
    } else if (now.count() < device.load.shared_until.load(std::memory_order_relaxed)) {
      to_software = true;
    }
  }
  return to_software && !route_.overflow->health.quarantined();
}

ErrorCode SessionCore::run_on_hardware(Request& request) {
  RegisteredDriver& device = *route_.driver;
  const bool chain = request.continues;
  if (overflows_to_software(device)) {
    // Other threads keep the device busy: software is sooner.
    if (attempt(*route_.overflow, *route_.overflow_session, request) == Attempt::served)
      return request.status;
    if (overlaps(request)) throw_failure(false);  // its input may be lost
    // The device takes it after all.
    request.continues = chain;
  }
  if (attempt(device, *route_.session, request) == Attempt::served) return request.status;
  return reroute_after_failure(request);
}

// Caches the route a first choice has just served: later requests the
// same driver would be chosen for skip the candidate walk (run()).
void SessionCore::cache_route(RegisteredDriver& driver, DriverSession& session,
                              const Capability& capability, const Request& request) {
  if (route_.driver != &driver) driver.load.times_chosen.fetch_add(1, std::memory_order_relaxed);
  const SizeRange sizes = pinned_ != nullptr
                              ? SizeRange{0, std::numeric_limits<std::size_t>::max()}
                              : framework_.dispatcher.same_order(algorithm_.id, request.in.size());
  route_ = {.driver = &driver,
            .session = &session,
            .slot = &slots_[driver.index],
            .low = sizes.min,
            .width = std::min(sizes.max, capability.max_request) - sizes.min,
            .input_mask = capability.input_multiple - 1,
            .iv_size = request.iv.size(),
            .tag_size = request.tag.size(),
            .hardware = driver.traits.kind == DriverKind::hardware};
  if (route_.hardware && pinned_ == nullptr) add_overflow(request);
}

ErrorCode SessionCore::run_routed(Request& request, const RegisteredDriver* avoid,
                                  bool follow_pin) {
  const std::size_t a = index_of(algorithm_.id);
  const bool pinned = pinned_ != nullptr && follow_pin;
  // An in-place request whose driver failed may have half-overwritten its
  // input: retrying it elsewhere could return a wrong answer, so it fails.
  const bool in_place = overlaps(request);
  bool attempted = false;
  candidates(request.in.size(), candidates_, follow_pin);
  // The dispatcher's first choice (or any of its equivalent peers) is
  // cached as the session's route; a fallback is not, so that the first
  // choice is tried again once it is back.
  const auto ordered = framework_.dispatcher.candidates(algorithm_.id, request.in.size());
  const auto first_choices =
      pinned ? std::span<RegisteredDriver* const>(&pinned_, 1)
             : ordered.first(std::min(
                   ordered.size(), framework_.dispatcher.peers(algorithm_.id, request.in.size())));
  for (RegisteredDriver* driver : candidates_) {
    if (driver == avoid) continue;
    const Capability* capability = driver->enabled[a];
    if (!covers(*capability, request) || !capability->key_sizes.contains(key_.size())) continue;
    DriverSession* session = session_for(*driver);
    if (session == nullptr) continue;
    const Attempt outcome = attempt(*driver, *session, request);
    if (outcome == Attempt::declined) continue;
    attempted = true;
    if (outcome == Attempt::served) {
      // Only a first choice is cached: whatever it covers in its size range,
      // it would be chosen for anyway. A driver that takes only some
      // operations never is: the route would not ask which. Nor is one
      // that served in the pinned driver's stead: the pin stays first. Nor
      // one with an AAD limit: the cached route compares no AAD.
      if (capability->operations == kEveryOperation && capability->max_aad == kAnyLength &&
          (pinned || pinned_ == nullptr) &&
          std::find(first_choices.begin(), first_choices.end(), driver) != first_choices.end())
        cache_route(*driver, *session, *capability, request);
      return request.status;
    }
    if (in_place) break;
  }
  if (!attempted) {
    // A preference (the provider's `driver =`): a request its driver does
    // not cover (an operation it lacks, such as a signature on a driver
    // that only decrypts) goes to the dispatcher rather than failing.
    if (pinned && falls_back_) return run_routed(request, avoid, false);
    throw_no_driver(request, pinned);
  }
  throw_failure(pinned);
}

void SessionCore::throw_failure(bool on_pin) const {
  throw DriverFailure(on_pin ? "driver '" + pinned_->name + "' failed on " +
                                   std::string(algorithm_.name)
                             : "every driver failed on " + std::string(algorithm_.name));
}

void SessionCore::throw_no_driver(const Request& request, bool on_pin) const {
  std::string what = "no driver can run " + std::string(algorithm_.name);
  if (on_pin) what += " on '" + pinned_->name + "'";
  what += " with a " + std::to_string(request.in.size()) + "-byte input";
  if (!request.iv.empty()) what += ", " + std::to_string(request.iv.size()) + "-byte IV";
  if (!request.tag.empty()) what += ", " + std::to_string(request.tag.size()) + "-byte tag";
  throw Unsupported(what);
}

SessionCore::Stream SessionCore::open_stream(bool follow_pin) {
  const std::size_t a = index_of(algorithm_.id);
  const bool pinned = pinned_ != nullptr && follow_pin;
  // A stream's size is unknown; streams carry long inputs, so the largest
  // size bucket decides.
  candidates(std::numeric_limits<std::size_t>::max(), candidates_, follow_pin);
  for (RegisteredDriver* driver : candidates_) {
    if (!driver->enabled[a]->key_sizes.contains(key_.size())) continue;
    DriverSession* session = session_for(*driver);
    if (session == nullptr) continue;
    try {
      if (auto stream = session->open_stream()) return {std::move(stream), driver};
    } catch (const Error&) {
      ++slots_[driver->index].failures;
      if (holds_to(*driver)) throw;
    }
  }
  // A preference whose driver cannot stream: the dispatcher's drivers.
  if (pinned && falls_back_) return open_stream(false);
  throw Unsupported("no driver can stream " + std::string(algorithm_.name) +
                    (pinned ? " on '" + pinned_->name + "'" : std::string()));
}

void SessionCore::record(RegisteredDriver* driver, std::size_t bytes, bool failed) noexcept {
  if (failed)
    ++slots_[driver->index].failures;
  else
    count(driver, bytes);
}

void SessionCore::flush_usage() noexcept {
  const std::size_t a = index_of(algorithm_.id);
  const auto& drivers = framework_.registry.drivers();
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    Slot& slot = slots_[i];
    if (slot.requests == 0 && slot.failures == 0) continue;
    auto& usage = drivers[i]->usage[a];
    usage.requests.fetch_add(slot.requests, std::memory_order_relaxed);
    usage.bytes.fetch_add(slot.bytes, std::memory_order_relaxed);
    usage.failures.fetch_add(slot.failures, std::memory_order_relaxed);
    slot.requests = slot.bytes = slot.failures = 0;
  }
  unflushed_ = 0;
}

}  // namespace cryptoaccel::detail
