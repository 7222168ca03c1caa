#include "thread_state.hpp"

#include <memory>

#include "cryptoaccel/error.hpp"
#include "manager.hpp"

namespace cryptoaccel::mb {

thread_local ThreadState* current_thread_state = nullptr;

ThreadState::ThreadState() : manager(alloc_mb_mgr(0)) {
  if (manager == nullptr) throw DriverFailure("mb: alloc_mb_mgr failed (out of memory)");
  IMB_ARCH arch = IMB_ARCH_NONE;
  init_mb_mgr_auto(manager, &arch);
  if (arch == IMB_ARCH_NONE || imb_get_errno(manager) != 0) {
    const std::string why = last_error(*manager);
    free_mb_mgr(manager);
    throw DriverFailure("mb: init_mb_mgr_auto failed: " + why);
  }
}

ThreadState::~ThreadState() {
  free_mb_mgr(manager);
}

ThreadState& make_thread_state() {
  // Owns the state and frees it when the thread ends.
  thread_local std::unique_ptr<ThreadState> owner;
  owner = std::make_unique<ThreadState>();
  current_thread_state = owner.get();
  return *owner;
}

}  // namespace cryptoaccel::mb
