// The EAL, started once per process (eal.cpp).
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace cryptoaccel::dpdk_backend {

// ca_dpdk_backend::start.
int start_eal(int argc, char** argv, char* message, std::size_t message_size);

// The last line DPDK logged (its log is kept, not printed).
std::string last_dpdk_log_line();
void forget_dpdk_log();

// Was EAL started by the application (not by this backend)? Then only the
// devices added for the backend's arguments are its to use.
bool eal_shared() noexcept;
bool added_for_us(std::string_view device);

// While one lives, DPDK's log is kept (not printed) even where EAL is
// shared, whose log is otherwise the application's: what a PMD says of a
// device the backend opens is the backend's. Another thread's DPDK lines
// in that moment are kept with it.
class DpdkLogKept {
 public:
  DpdkLogKept();
  ~DpdkLogKept();
  DpdkLogKept(const DpdkLogKept&) = delete;
  DpdkLogKept& operator=(const DpdkLogKept&) = delete;

 private:
  FILE* application_ = nullptr;
};

// Did this process start (or share) the EAL? False in a child after fork():
// DPDK's threads and devices stay with the parent.
bool eal_usable_here() noexcept;

}  // namespace cryptoaccel::dpdk_backend
