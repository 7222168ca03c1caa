// What each thread that runs bursts keeps of its own: libipsec-mb's
// manager (IMB_MGR serves one thread at a time) and the scratch space of a
// burst, made once per thread so that a burst allocates nothing.
#pragma once

#include <intel-ipsec-mb.h>

#include <array>
#include <cstdint>
#include <vector>

#include "bursts.hpp"

namespace cryptoaccel::mb {

inline constexpr std::size_t kMaxBurst = IMB_MAX_BURST_SIZE;

// One burst in the making: the jobs and, per job, the request it serves.
struct Lanes {
  std::array<IMB_JOB, kMaxBurst> jobs{};
  std::array<Request*, kMaxBurst> owners{};
  // CTR: the counter block of a request's second part (bursts.cpp, add_ctr).
  std::array<std::array<std::uint8_t, 16>, kMaxBurst> counters{};
  std::size_t count = 0;

  IMB_JOB& add(Request& owner) {
    owners[count] = &owner;
    return jobs[count++];
  }
  bool full(std::size_t room_needed = 1) const { return count + room_needed > kMaxBurst; }
};

struct ThreadState {
  IMB_MGR* manager = nullptr;  // freed with the state
  Lanes lanes;
  std::vector<Entry> entries;                           // a session's batch as entries
  std::vector<Entry> taken;                             // what a flush took from the queue
  std::vector<std::array<std::uint8_t, 16>> open_tags;  // GCM opens: the computed tags
  ThreadState();
  ~ThreadState();
  ThreadState(const ThreadState&) = delete;
  ThreadState& operator=(const ThreadState&) = delete;
};

// General-dynamic, as every thread-local variable of a dlopen()ed module
// must be; through a TLS descriptor (src/CMakeLists.txt), reaching it costs
// one call that returns a constant, not __tls_get_addr (which cost 5% of a
// 256-byte burst). A pointer only, so that the module's TLS block stays
// small enough to fit glibc's reserve where there is room.
extern thread_local ThreadState* current_thread_state;

// Makes this thread's state. Throws DriverFailure when the library cannot
// make a manager.
ThreadState& make_thread_state();

inline ThreadState& this_thread_state() {
  return current_thread_state != nullptr ? *current_thread_state : make_thread_state();
}

inline IMB_MGR& thread_manager() {
  return *this_thread_state().manager;
}

}  // namespace cryptoaccel::mb
