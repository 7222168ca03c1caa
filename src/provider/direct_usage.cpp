#include "direct_usage.hpp"

#include <atomic>
#include <mutex>
#include <unordered_map>

namespace cryptoaccel::provider {
namespace {

struct Target {
  Framework* framework;
  std::size_t driver;
};

// The live sinks by id. Never destroyed: a thread may end, and add its
// batch, after the process's static objects are gone.
struct Sinks {
  std::mutex mutex;
  std::unordered_map<std::uint64_t, Target> live;
  std::atomic<std::uint64_t> next_id{1};
};
Sinks& sinks() {
  static Sinks* const all = new Sinks;
  return *all;
}

// Adds the thread's batch when the thread ends.
struct CommitAtExit {
  ~CommitAtExit() { detail::direct_batch.commit(); }
};
thread_local CommitAtExit commit_at_exit;

}  // namespace

namespace detail {

thread_local DirectBatch direct_batch{};

void DirectBatch::commit() noexcept {
  [[maybe_unused]] static thread_local const CommitAtExit* registered = &commit_at_exit;
  if (requests == 0 && bytes == 0) return;
  Sinks& all = sinks();
  {
    std::lock_guard lock(all.mutex);
    const auto found = all.live.find(sink);
    if (found != all.live.end())
      found->second.framework->count_usage(found->second.driver, algorithm, requests, bytes);
  }
  requests = bytes = 0;
}

}  // namespace detail

DirectUsageSink::DirectUsageSink(Framework& framework, std::size_t driver)
    : id_(sinks().next_id.fetch_add(1)) {
  std::lock_guard lock(sinks().mutex);
  sinks().live.emplace(id_, Target{&framework, driver});
}

DirectUsageSink::~DirectUsageSink() {
  commit_direct_usage();
  std::lock_guard lock(sinks().mutex);
  sinks().live.erase(id_);
}

void commit_direct_usage() noexcept {
  detail::direct_batch.commit();
}

}  // namespace cryptoaccel::provider
