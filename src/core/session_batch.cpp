// SessionCore::run_batch: the asynchronous API's path through the
// dispatcher, which hands drivers several requests at once.
#include "session_core.hpp"

namespace cryptoaccel::detail {

void SessionCore::run_batch(std::span<Request> batch, const RegisteredDriver* avoid, Watch* watch,
                            RegisteredDriver** served) noexcept {
  const std::size_t a = index_of(algorithm_.id);
  // The driver the dispatcher would try first for `r`, with its session.
  const auto choose = [&](const Request& r, DriverSession*& session) -> RegisteredDriver* {
    try {
      candidates(r.in.size(), candidates_);
    } catch (...) {
      return nullptr;
    }
    for (RegisteredDriver* d : candidates_) {
      if (d == avoid) continue;
      const Capability* c = d->enabled[a];
      if (!covers(*c, r) || !c->key_sizes.contains(key_.size())) continue;
      DriverSession* s = nullptr;
      try {
        s = session_for(*d);
      } catch (...) {
      }
      if (s == nullptr) continue;
      session = s;
      return d;
    }
    return nullptr;
  };
  // Re-runs one request alone through the full failover path.
  const auto run_alone = [&](Request& r, const RegisteredDriver* failed) {
    last_ = nullptr;
    try {
      r.continues = false;
      r.status = run_routed(r, failed != nullptr ? failed : avoid);
      if (served != nullptr) served[&r - batch.data()] = last_;
    } catch (const Error& e) {
      r.status = e.code();
    } catch (...) {
      r.status = ErrorCode::driver_failure;
    }
  };

  std::size_t i = 0;
  while (i < batch.size()) {
    DriverSession* session = nullptr;
    RegisteredDriver* driver = choose(batch[i], session);
    if (driver == nullptr) {
      if (served != nullptr) served[i] = nullptr;
      run_alone(batch[i], nullptr);  // reports why no driver can take it
      ++i;
      continue;
    }
    // Extend the run while the next request has the same first choice.
    const std::size_t depth = driver->traits.max_in_flight == 0 ? 1 : driver->traits.max_in_flight;
    std::size_t end = i + 1;
    while (end < batch.size() && end - i < depth) {
      DriverSession* next_session = nullptr;
      if (choose(batch[end], next_session) != driver) break;
      ++end;
    }
    const std::span<Request> run = batch.subspan(i, end - i);
    for (Request& r : run) {
      r.continues = false;
      r.status = ErrorCode::ok;
    }
    last_session_ = nullptr;  // batches never continue a stream
    std::uint64_t bytes = 0;
    for (const Request& r : run) bytes += r.in.size();
    driver->outstanding_bytes.fetch_add(bytes, std::memory_order_relaxed);
    driver->chosen.fetch_add(1, std::memory_order_relaxed);
    if (watch != nullptr) {
      watch->since.store(DriverHealth::Clock::now().time_since_epoch().count(),
                         std::memory_order_relaxed);
      watch->driver.store(driver, std::memory_order_release);
    }
    std::size_t done = 0;
    {
      const InDriver in_driver(*driver, static_cast<std::uint32_t>(run.size()));
      done = session->process(run);
    }
    if (watch != nullptr) {
      watch->driver.store(nullptr, std::memory_order_release);
      watch->since.store(0, std::memory_order_relaxed);
    }
    driver->outstanding_bytes.fetch_sub(bytes, std::memory_order_relaxed);
    for (std::size_t k = 0; k < run.size(); ++k) {
      Request& r = run[k];
      if (served != nullptr) served[i + k] = nullptr;
      if (k < done && r.status != ErrorCode::driver_failure) {
        driver->health.succeeded();
        count(driver, r.in.size());
        if (served != nullptr) served[i + k] = driver;
        continue;
      }
      ++slots_[driver->index].failures;
      driver->health.failed();
      if (pinned_ != nullptr || overlaps(r)) {
        r.status = ErrorCode::driver_failure;  // as run() does: never swapped, or input lost
        continue;
      }
      run_alone(r, driver);
    }
    i = end;
  }
}

}  // namespace cryptoaccel::detail
