// Runs a set of requests of one route and direction, each with its own
// session's keys, through libipsec-mb on this thread's manager: the lanes of
// a burst are independent, so requests from different sessions, with
// different keys, IVs and lengths, share one.
#pragma once

#include <span>

#include "cryptoaccel/request.hpp"
#include "key_schedule.hpp"
#include "routes.hpp"

namespace cryptoaccel::mb {

struct Ticket;  // gatherer.hpp: whose requests these are

struct Entry {
  Request* request;
  const KeySchedule* keys;
  Ticket* ticket = nullptr;        // a waiting caller's (Gatherer::run)
  AsyncTicket* started = nullptr;  // or a starter's, who does not wait (Gatherer::start)
};

// Runs every entry's request. Statuses arrive ok (the framework resets
// them); a failure is written: authentication_failed for a GCM open whose
// tag differs, driver_failure when the library refuses a job.
void run_burst(const Route& route, Operation op, std::span<Entry> entries) noexcept;

// The same for requests of one session, all with `keys`: a caller alone
// runs its batch so, without first making an entry of each request.
void run_burst(const Route& route, Operation op, std::span<Request> requests,
               const KeySchedule& keys) noexcept;

}  // namespace cryptoaccel::mb
