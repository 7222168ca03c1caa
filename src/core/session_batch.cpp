// SessionCore::run_batch: the asynchronous API's path through the
// dispatcher, which hands drivers several requests at once. Its steps: the
// first choice for a request, a run of consecutive requests with that same
// choice sent together, and each failed request re-run alone.
#include "session_core.hpp"

#include <algorithm>
#include <limits>

#include "request_check.hpp"

namespace cryptoaccel::detail {
namespace {

// Does `capability` cover every request of `batch`, as check_batch
// summarised it (covers(), on the first request and the range of inputs)?
bool covers_all(const Capability& capability, std::span<const Request> batch,
                const BatchSummary& summary) noexcept {
  return summary.uniform && summary.largest_input <= capability.max_request &&
         (summary.input_bits & (capability.input_multiple - 1)) == 0 &&
         covers(capability, batch.front());
}

}  // namespace

RegisteredDriver* SessionCore::first_choice(const Request& request, const RegisteredDriver* avoid,
                                            DriverSession*& session) noexcept {
  const std::size_t a = index_of(algorithm_.id);
  const auto takes = [&](RegisteredDriver* d) {
    if (d == avoid) return false;
    const Capability* c = d->enabled[a];
    if (!covers(*c, request) || !c->key_sizes.contains(key_.size())) return false;
    DriverSession* s = nullptr;
    try {
      s = session_for(*d);
    } catch (...) {
    }
    if (s == nullptr) return false;
    session = s;
    return true;
  };
  // The common case, without copying the order: no peers to spread the load
  // over, and a driver in good health takes it. (At 256 bytes a batch of 16
  // on mb takes half a microsecond; the copy cost a few percent of it.)
  if (pinned_ != nullptr) return takes(pinned_) ? pinned_ : nullptr;  // whatever its health
  const std::size_t size = request.in.size();
  if (framework_.dispatcher.peers(algorithm_.id, size) <= 1)
    for (RegisteredDriver* d : framework_.dispatcher.candidates(algorithm_.id, size))
      if (!d->health.quarantined() && takes(d)) return d;
  try {
    candidates(size, candidates_);
  } catch (...) {
    return nullptr;
  }
  for (RegisteredDriver* d : candidates_)
    if (takes(d)) return d;
  return nullptr;
}

RegisteredDriver* SessionCore::deeper_choice(std::span<Request> batch, std::size_t i,
                                             RegisteredDriver* first, const RegisteredDriver* avoid,
                                             DriverSession*& session, std::size_t& depth) noexcept {
  depth = 0;
  const Dispatcher::Gather g = framework_.dispatcher.gather(algorithm_.id, batch[i].in.size());
  if (g.driver == nullptr || g.driver == first || g.driver == avoid ||
      g.driver->health.quarantined())
    return first;
  const Capability* c = g.driver->enabled[index_of(algorithm_.id)];
  if (c == nullptr || !c->key_sizes.contains(key_.size())) return first;
  const SizeRange same_order = framework_.dispatcher.same_order(algorithm_.id, batch[i].in.size());
  const std::size_t most = std::max<std::size_t>(g.driver->traits.max_in_flight, 1);
  while (i + depth < batch.size() && depth < most &&
         same_order.contains(batch[i + depth].in.size()) && covers(*c, batch[i + depth]))
    ++depth;
  DriverSession* deeper = nullptr;
  if (depth >= g.from_depth) {  // else too shallow: the first choice is faster
    try {
      deeper = session_for(*g.driver);
    } catch (...) {
    }
  }
  if (deeper == nullptr) {
    depth = 0;
    return first;
  }
  session = deeper;
  return g.driver;
}

bool SessionCore::start_batch(std::span<Request> batch, AsyncTicket& ticket) noexcept {
  const std::size_t a = index_of(algorithm_.id);
  try {
    candidates(batch.front().in.size(), candidates_);
  } catch (...) {
    return false;
  }
  for (RegisteredDriver* d : candidates_) {
    if (!d->traits.gathers) continue;
    const Capability* c = d->enabled[a];
    if (c == nullptr || !c->key_sizes.contains(key_.size()) ||
        !std::all_of(batch.begin(), batch.end(), [&](const Request& r) { return covers(*c, r); }))
      continue;
    DriverSession* s = nullptr;
    try {
      s = session_for(*d);
    } catch (...) {
    }
    if (s == nullptr) continue;
    last_session_ = nullptr;  // started requests never continue a stream
    if (!s->start(batch, ticket)) continue;
    std::uint64_t bytes = 0;
    for (const Request& r : batch) bytes += r.in.size();
    count(d, batch.size(), bytes);
    started_on_ = s;
    return true;
  }
  return false;
}

void SessionCore::flush_started() noexcept {
  if (started_on_ != nullptr) started_on_->flush();
}

RegisteredDriver* SessionCore::run_alone(Request& request, const RegisteredDriver* avoid) noexcept {
  last_ = nullptr;
  try {
    request.continues = false;
    request.status = run_routed(request, avoid);
    return last_;
  } catch (const Error& e) {
    request.status = e.code();
  } catch (...) {
    request.status = ErrorCode::driver_failure;
  }
  return nullptr;
}

std::size_t SessionCore::send_together(RegisteredDriver& driver, DriverSession& session,
                                       std::span<Request> run, Watch* watch,
                                       bool uniform) noexcept {
  last_session_ = nullptr;  // batches never continue a stream
  // The load the dispatcher spreads over equivalent hardware; software's
  // is never weighed, and three atomic adds would cost a multi-buffer
  // burst of small requests a tenth of its time.
  const bool weighed = driver.traits.kind == DriverKind::hardware;
  std::uint64_t bytes = 0;
  if (weighed) {
    for (const Request& r : run) bytes += r.in.size();
    driver.load.outstanding_bytes.fetch_add(bytes, std::memory_order_relaxed);
    driver.load.times_chosen.fetch_add(1, std::memory_order_relaxed);
  }
  if (watch != nullptr) {
    watch->since.store(DriverHealth::Clock::now().time_since_epoch().count(),
                       std::memory_order_relaxed);
    watch->driver.store(&driver, std::memory_order_release);
  }
  std::size_t done = 0;
  {
    const InFlightCount in_flight(driver, static_cast<std::uint32_t>(run.size()));
    done = uniform ? session.process_uniform(run) : session.process(run);
  }
  if (watch != nullptr) {
    watch->driver.store(nullptr, std::memory_order_release);
    watch->since.store(0, std::memory_order_relaxed);
  }
  if (weighed) driver.load.outstanding_bytes.fetch_sub(bytes, std::memory_order_relaxed);
  return done;
}

std::size_t SessionCore::run_batch(std::span<Request> batch, const RegisteredDriver* avoid,
                                   Watch* watch, RegisteredDriver** served,
                                   const BatchSummary* checked) noexcept {
  const auto record_server = [served](std::size_t i, RegisteredDriver* d) {
    if (served != nullptr) served[i] = d;
  };
  std::size_t i = 0, ok = 0;
  while (i < batch.size()) {
    DriverSession* session = nullptr;
    RegisteredDriver* driver = first_choice(batch[i], avoid, session);
    // A driver that takes only some operations may decline: one at a time,
    // through the path that moves a declined request on.
    if (driver == nullptr ||
        driver->enabled[index_of(algorithm_.id)]->operations != kEveryOperation) {
      record_server(i, nullptr);
      record_server(i, run_alone(batch[i], avoid));  // reports why no driver can take it
      if (batch[i].status == ErrorCode::ok) ++ok;
      ++i;
      continue;
    }
    std::size_t counted = 0;  // the run deeper_choice measured, when it chose
    if (pinned_ == nullptr) driver = deeper_choice(batch, i, driver, avoid, session, counted);
    // Extend the run while the next request has the same first choice: a
    // size the dispatcher orders alike (any size when pinned) and lengths
    // the driver takes. Asking the dispatcher again per request would cost
    // more than a small request's cryptography on a multi-buffer driver.
    const std::size_t depth = driver->traits.max_in_flight == 0 ? 1 : driver->traits.max_in_flight;
    const Capability& capability = *driver->enabled[index_of(algorithm_.id)];
    const SizeRange same_order =
        pinned_ != nullptr ? SizeRange{0, std::numeric_limits<std::size_t>::max()}
                           : framework_.dispatcher.same_order(algorithm_.id, batch[i].in.size());
    std::size_t end = i + std::max<std::size_t>(counted, 1);
    // The whole batch is one run when its summary (check_batch's) shows
    // that the driver takes every request of it: no second look at each.
    const bool whole = counted == 0 && checked != nullptr && i == 0 && depth >= batch.size() &&
                       same_order.contains(checked->smallest_input) &&
                       same_order.contains(checked->largest_input) &&
                       covers_all(capability, batch, *checked);
    if (whole) {
      end = batch.size();
    } else if (counted != 0) {
      // deeper_choice measured the run already
    } else if (covers_every_checked(capability, algorithm_)) {
      const std::size_t most = std::min(batch.size(), i + depth);
      const SizeRange taken{same_order.min, std::min(same_order.max, capability.max_request)};
      const std::size_t max_aad = capability.max_aad;
      while (end < most && taken.contains(batch[end].in.size()) && batch[end].aad.size() <= max_aad)
        ++end;
    } else {
      while (end < batch.size() && end - i < depth && same_order.contains(batch[end].in.size()) &&
             covers(capability, batch[end]))
        ++end;
    }
    const std::span<Request> run = batch.subspan(i, end - i);
    const std::size_t done = send_together(*driver, *session, run, watch, whole);
    // The common case, in one pass that stops at the first exception: the
    // driver ran every request and each succeeded. (A pass counting every
    // status without branches was vectorised by GCC into gathers that cost
    // more than the loop it replaced.)
    std::size_t failed = run.size() - done, ok_here = 0;
    while (ok_here < done && run[ok_here].status == ErrorCode::ok) ++ok_here;
    std::uint64_t bytes_here = 0;
    if (whole && ok_here == run.size())
      bytes_here = checked->input_bytes;
    else
      for (std::size_t k = 0; k < ok_here; ++k) bytes_here += run[k].in.size();
    for (std::size_t k = ok_here; k < done; ++k) {
      failed += run[k].status == ErrorCode::driver_failure ||
                run[k].status == ErrorCode::unsupported;
      ok_here += run[k].status == ErrorCode::ok;
      bytes_here += run[k].in.size();
    }
    if (failed == 0) {
      if (served != nullptr) std::fill_n(served + i, run.size(), driver);
      count(driver, run.size(), bytes_here);
      driver->health.succeeded();
      ok += ok_here;
      i = end;
      continue;
    }
    std::size_t served_here = 0;
    bytes_here = 0;
    for (std::size_t k = 0; k < run.size(); ++k) {
      Request& r = run[k];
      record_server(i + k, nullptr);
      // A request the driver declined (a length its device does not take
      // after all: a range with gaps) is untouched, and goes to the next
      // driver as if this one had not been a candidate; pinned, it stays
      // declined.
      const bool declined = k < done && r.status == ErrorCode::unsupported;
      if (declined) {
        if (pinned_ == nullptr) record_server(i + k, run_alone(r, driver));
        if (r.status == ErrorCode::ok) ++ok;
        continue;
      }
      if (k < done && r.status != ErrorCode::driver_failure) {
        ++served_here;
        bytes_here += r.in.size();
        if (r.status == ErrorCode::ok) ++ok;
        record_server(i + k, driver);
        continue;
      }
      ++slots_[driver->index].failures;
      driver->health.failed();
      if (pinned_ != nullptr || overlaps(r)) {
        r.status = ErrorCode::driver_failure;  // as run() does: never swapped, or input lost
        continue;
      }
      record_server(i + k, run_alone(r, driver));
      if (r.status == ErrorCode::ok) ++ok;
    }
    if (served_here != 0) {
      count(driver, served_here, bytes_here);
      driver->health.succeeded();
    }
    i = end;
  }
  return ok;
}

}  // namespace cryptoaccel::detail
