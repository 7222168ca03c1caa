// The CUSE character device: /dev/<name> served by this process through
// libfuse3, each ioctl handed to protocol.hpp. Returns when SIGTERM, SIGINT
// or SIGHUP arrives (or the kernel ends the device), after every client's
// sessions have been freed.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "server_quota.hpp"
#include "service.hpp"

namespace cryptoaccel::devcrypto {

struct ServerOptions {
  std::string device_name = "crypto";  // /dev/<device_name>
  mode_t mode = 0666;                  // of the device node, as cryptodev-linux's
  uid_t uid = static_cast<uid_t>(-1);  // -1: leave as created (root)
  gid_t gid = static_cast<gid_t>(-1);
  bool foreground = false;   // else detach (libfuse daemonizes)
  bool debug = false;        // libfuse's request trace on stderr
  unsigned max_threads = 8;  // worker threads: requests served at once
  QuotaLimits limits;        // open files and sessions of the whole server
  // Requests larger than a round (deferred_requests.hpp): how long a copier
  // may take in a client's memory before it is given up (the request then
  // fails with ETIMEDOUT), and how many such requests of one user run at
  // once (0: half the threads).
  std::chrono::milliseconds memory_deadline{2000};
  unsigned memory_slots_per_user = 0;
};

// Refuses a device name that is not plain or names a file that exists
// (device_node.hpp), before anything is set up. Sets up the device, then calls `make_service`
// (after detaching, so that no thread the framework starts is lost to the fork) and serves until a
// signal. Returns the process exit status: 0 after a clean shutdown.
// `make_service` may throw; its message is printed and the status is 1.
int run_server(const ServerOptions& options,
               const std::function<std::unique_ptr<Service>()>& make_service);

}  // namespace cryptoaccel::devcrypto
