#define FUSE_USE_VERSION 312
#include "cuse_server.hpp"

#include <cuse_lowlevel.h>
#include <fmt/core.h>
#include <malloc.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <vector>

#include "../abi/cryptodev.hpp"
#include "cryptoaccel/driver/secret_bytes.hpp"
#include "deferred_requests.hpp"
#include "device_node.hpp"
#include "memory_copiers.hpp"
#include "protocol.hpp"
#include "stop_deadline.hpp"

namespace cryptoaccel::devcrypto {
namespace {

// Everything the callbacks reach through libfuse's userdata pointer.
struct Server {
  explicit Server(const ServerOptions& o) : options(&o), quota(o.limits) {}
  const ServerOptions* options;
  std::unique_ptr<Service> service;
  ServerQuota quota;  // before the clients: they return their sessions to it
  std::mutex mutex;
  std::map<std::uint64_t, std::unique_ptr<Client>> clients;  // by fuse_file_info::fh
  // The kernel's handle for waking a poll() of each open file, when it asked.
  std::map<std::uint64_t, fuse_pollhandle*> poll_handles;
  std::uint64_t next_handle = 0;
  std::mt19937 ids{std::random_device{}()};
  // The requests larger than a round (client_memory.hpp); both null until
  // the device is set up.
  std::unique_ptr<MemoryCopiers> copiers;
  std::unique_ptr<DeferredRequests> deferred_requests;
};

Server& server_of(fuse_req_t req) {
  return *static_cast<Server*>(fuse_req_userdata(req));
}

Client* client_of(Server& server, const fuse_file_info* fi) {
  std::lock_guard lock(server.mutex);
  const auto it = server.clients.find(fi->fh);
  return it == server.clients.end() ? nullptr : it->second.get();
}

void on_init_done(void* userdata) {
  // The node exists now; give it the mode and owner asked for, but only if
  // it is the device the kernel made for us: never a file put in its place.
  const Server& server = *static_cast<Server*>(userdata);
  const ServerOptions& o = *server.options;
  const auto devt = cuse_device_number(o.device_name);
  const std::string why =
      devt ? adopt_device_node("/dev", o.device_name, *devt, o.mode, o.uid, o.gid)
           : "no /sys/class/cuse/" + o.device_name + "/dev: cannot prove which node is ours";
  if (!why.empty()) fmt::print(stderr, "cryptoaccel devcrypto: mode and owner not set: {}\n", why);
}

// A started request of the file `fh` ran, perhaps in another client's burst.
void on_request_ready(void* server, std::uint64_t fh);

void on_open(fuse_req_t req, fuse_file_info* fi) {
  Server& server = server_of(req);
  // At the server's bound on open files, ENOMEM: what cryptodev-linux's
  // open answers when it cannot allocate a file's state.
  const uid_t user = fuse_req_ctx(req)->uid;
  if (!server.quota.take_file(user)) {
    fuse_reply_err(req, ENOMEM);
    return;
  }
  try {
    std::lock_guard lock(server.mutex);
    // Session ids start at a random point, as cryptodev-linux's are random.
    auto client =
        std::make_unique<Client>(server.quota, static_cast<std::uint32_t>(server.ids()), user);
    fi->fh = ++server.next_handle;
    client->set_ready_hook(on_request_ready, &server, fi->fh);
    server.clients.emplace(fi->fh, std::move(client));
  } catch (...) {
    server.quota.return_file(user);
    fuse_reply_err(req, ENOMEM);
    return;
  }
  fi->nonseekable = 1;
  fuse_reply_open(req, fi);
}

void forget_poll_handle(Server& server, std::uint64_t fh) {
  std::lock_guard lock(server.mutex);
  const auto it = server.poll_handles.find(fh);
  if (it == server.poll_handles.end()) return;
  fuse_pollhandle_destroy(it->second);
  server.poll_handles.erase(it);
}

// An asynchronous request was queued or fetched: a poll() waiting on the
// file looks again.
void wake_poll(Server& server, std::uint64_t fh) {
  std::lock_guard lock(server.mutex);
  const auto it = server.poll_handles.find(fh);
  if (it != server.poll_handles.end()) fuse_lowlevel_notify_poll(it->second);
}

void on_request_ready(void* server, std::uint64_t fh) {
  wake_poll(*static_cast<Server*>(server), fh);
}

void on_release(fuse_req_t req, fuse_file_info* fi) {
  // Also reached when a client dies: the kernel closes its files.
  Server& server = server_of(req);
  std::unique_ptr<Client> gone;  // its sessions end outside the lock
  {
    std::lock_guard lock(server.mutex);
    const auto it = server.clients.find(fi->fh);
    if (it != server.clients.end()) {
      gone = std::move(it->second);
      server.clients.erase(it);
    }
  }
  if (gone != nullptr) {
    const uid_t user = gone->user();
    gone.reset();
    server.quota.return_file(user);
  }
  forget_poll_handle(server, fi->fh);
  fuse_reply_err(req, 0);
}

void on_poll(fuse_req_t req, fuse_file_info* fi, fuse_pollhandle* ph) {
  Server& server = server_of(req);
  Client* client = client_of(server, fi);
  if (ph != nullptr) {
    std::lock_guard lock(server.mutex);
    fuse_pollhandle*& kept = server.poll_handles[fi->fh];
    if (kept != nullptr) fuse_pollhandle_destroy(kept);
    kept = ph;
  }
  unsigned revents = 0;
  // cryptodev-linux's poll: a done asynchronous request to fetch (POLLIN),
  // room to queue another (POLLOUT). A client that polls waits for its
  // requests: those still waiting for company run now.
  if (client != nullptr) client->run_waiting();
  if (client != nullptr && client->has_results()) revents |= POLLIN | POLLRDNORM;
  if (client != nullptr && client->has_room()) revents |= POLLOUT | POLLWRNORM;
  fuse_reply_poll(req, revents);
}

void reply(fuse_req_t req, const IoctlReply& r) {
  // A reply to a client that died meanwhile fails (ENOENT): nothing to do.
  switch (r.kind) {
    case IoctlReply::Kind::error:
      fuse_reply_err(req, r.error);
      return;
    case IoctlReply::Kind::retry: {
      std::vector<iovec> in(r.in_iov.size()), out(r.out_iov.size());
      for (std::size_t i = 0; i < in.size(); ++i)
        in[i] = {reinterpret_cast<void*>(r.in_iov[i].base), r.in_iov[i].len};
      for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = {reinterpret_cast<void*>(r.out_iov[i].base), r.out_iov[i].len};
      fuse_reply_ioctl_retry(req, in.data(), in.size(), out.data(), out.size());
      return;
    }
    case IoctlReply::Kind::done:
      fuse_reply_ioctl(req, 0, r.out.empty() ? nullptr : r.out.data(), r.out.size());
      return;
    case IoctlReply::Kind::defer:  // answered by defer(), never here
      fuse_reply_err(req, EIO);
      return;
  }
}

bool is_async(unsigned cmd) {
  return cryptodev::in_either_layout(
      [&]<class L>() { return cmd == L::kCiocAsyncCrypt || cmd == L::kCiocAsyncFetch; });
}

// Answers the ioctl; an asynchronous one that changed the queue wakes a
// poll() of the file.
void answer(Server& server, fuse_req_t req, std::uint64_t fh, unsigned cmd, const IoctlReply& r) {
  const bool changed = is_async(cmd) && r.kind != IoctlReply::Kind::retry;
  reply(req, r);
  if (changed) wake_poll(server, fh);
}

IoctlReply handle_caught(const Service& service, Client& client, const IoctlCall& call) {
  try {
    return handle_ioctl(service, client, call);
  } catch (...) {
    return {.kind = IoctlReply::Kind::error, .error = ENOMEM};
  }
}

// A request that may take long (protocol.hpp), served by the threads of
// deferred_requests.hpp. The client stays: its file is held by the ioctl,
// which waits for this answer. Its input (CIOCKEY's private numbers among
// them) is kept in memory that is wiped when the job goes.
void defer(Server& server, fuse_req_t req, std::uint64_t fh, Client& client, const IoctlCall& call) {
  const fuse_ctx* ctx = fuse_req_ctx(req);
  DeferredRequests::Job job;
  job.user = ctx->uid;
  job.run = [&server, req, fh, &client, cmd = call.cmd, arg = call.arg,
             in = std::make_shared<const SecretBytes>(call.in), out_size = call.out_size,
             caller = call.caller, user = ctx->uid, layout32 = call.layout32] {
    CopiedMemory memory(*server.copiers, static_cast<pid_t>(caller), user);
    const IoctlCall again{.cmd = cmd,
                          .arg = arg,
                          .in = in->span(),
                          .out_size = out_size,
                          .caller = caller,
                          .memory = &memory,
                          .layout32 = layout32};
    answer(server, req, fh, cmd, handle_caught(*server.service, client, again));
  };
  // The server stops: the client's call fails, as when the device goes.
  job.cancel = [req] { fuse_reply_err(req, ECANCELED); };
  // Too many of this user's requests wait already.
  if (!server.deferred_requests->submit(job)) fuse_reply_err(req, EAGAIN);
}

// The kernel's FUSE_IOCTL_32BIT (<linux/fuse.h>, which libfuse's headers do
// not expose; libfuse hands the flags through as the kernel sent them): the
// caller is a 32-bit program, on a 32-bit kernel or through a 64-bit
// kernel's compat ioctl.
constexpr unsigned kFuseIoctl32Bit = 1u << 3;

// A round's input beyond the struct itself: a session's keys (CIOCGSESSION),
// CIOCKEY's private exponents and factors, in either layout.
bool carries_keys(unsigned cmd, std::size_t in_size) {
  return cryptodev::in_either_layout([&]<class L>() {
    return (cmd == L::kCiocGSession && in_size > sizeof(typename L::SessionOp)) ||
           (cmd == L::kCiocKey && in_size > sizeof(typename L::CryptKop));
  });
}

void on_ioctl(fuse_req_t req, int cmd, void* arg, fuse_file_info* fi, unsigned flags,
              const void* in_buf, size_t in_bufsz, size_t out_bufsz) {
  Server& server = server_of(req);
  Client* client = client_of(server, fi);
  if (client == nullptr) {
    fuse_reply_err(req, EBADF);
    return;
  }
  const pid_t caller = fuse_req_ctx(req)->pid;
  // Never used here: a request that needs it is deferred.
  CopiedMemory memory(*server.copiers, caller, fuse_req_ctx(req)->uid);
  const IoctlCall call{.cmd = static_cast<unsigned>(cmd),
                       .arg = reinterpret_cast<std::uintptr_t>(arg),
                       .in = {static_cast<const std::uint8_t*>(in_buf), in_bufsz},
                       .out_size = out_bufsz,
                       .caller = static_cast<std::uint32_t>(caller),
                       .memory = &memory,
                       .shared_worker = true,
                       // A 32-bit program (on a 64-bit kernel, its compat
                       // ioctl): its structs and numbers are Layout32's.
                       .layout32 = (flags & kFuseIoctl32Bit) != 0};
  const IoctlReply r = handle_caught(*server.service, *client, call);
  // Before the wipe below: the deferred request takes its own copy.
  if (r.kind == IoctlReply::Kind::defer)
    defer(server, req, fi->fh, *client, call);
  else
    answer(server, req, fi->fh, call.cmd, r);
  // Keys pass through libfuse's receive buffer: leave none behind (a
  // session's keys; CIOCKEY's private exponents and factors).
  if (carries_keys(call.cmd, in_bufsz)) secure_wipe(const_cast<void*>(in_buf), in_bufsz);
}

bool stopped_by_signal(int status) {
  // libfuse reports the signal that ended its loop as the loop's result.
  for (int sig : {SIGTERM, SIGINT, SIGHUP})
    if (status == sig || status == -sig) return true;
  return false;
}

}  // namespace

int run_server(const ServerOptions& options,
               const std::function<std::unique_ptr<Service>()>& make_service) {
  // Refused before CUSE is set up: nothing is created or changed.
  if (const std::string why = device_node_problem("/dev", options.device_name); !why.empty()) {
    fmt::print(stderr, "cryptoaccel devcrypto: --name: {}\n", why);
    return 1;
  }
  // One malloc arena for every worker thread: glibc's malloc_trim trims
  // the free top only of the main arena (mtrim calls systrim for it alone),
  // and sessions that workers made and freed in arenas of their own end in
  // those arenas' tops. The round trips through the kernel cost far more
  // than the arena's lock.
  ::mallopt(M_ARENA_MAX, 1);
  Server server(options);

  const std::string devname = "DEVNAME=" + options.device_name;
  const char* dev_info[] = {devname.c_str()};
  cuse_info ci{};
  ci.dev_info_argc = 1;
  ci.dev_info_argv = dev_info;
  ci.flags = CUSE_UNRESTRICTED_IOCTL;

  cuse_lowlevel_ops ops{};
  ops.init_done = on_init_done;
  ops.open = on_open;
  ops.release = on_release;
  ops.ioctl = on_ioctl;
  ops.poll = on_poll;

  std::vector<std::string> words{"cryptoaccel-devcrypto"};
  if (options.foreground) words.push_back("-f");
  if (options.debug) words.push_back("-d");
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);

  int multithreaded = 0;
  fuse_session* session = cuse_lowlevel_setup(static_cast<int>(words.size()), argv.data(), &ci,
                                              &ops, &multithreaded, &server);
  if (session == nullptr) {
    fmt::print(stderr,
               "cryptoaccel devcrypto: cannot set up /dev/{} through CUSE (is "
               "the cuse module "
               "loaded, /dev/cuse writable, and are we root?)\n",
               options.device_name);
    return 1;
  }
  int status = 0;
  std::optional<StopDeadline> stop_deadline;
  try {
    // Forked before the framework starts threads and before any client:
    // the copiers hold no one's key (memory_copiers.hpp).
    server.copiers = std::make_unique<MemoryCopiers>(options.memory_deadline);
    // A signal ends the server within a second, whatever runs
    // (stop_deadline.hpp): the rest of the second is the kernel's, which
    // takes a few hundred milliseconds to end the process in an emulated
    // guest under load.
    stop_deadline.emplace(std::chrono::milliseconds(300));
    server.service = make_service();
    const unsigned per_user = options.memory_slots_per_user != 0
                                  ? options.memory_slots_per_user
                                  : std::max(1U, options.max_threads / 2);
    // Four threads for each worker at most: as many users as that many
    // slots take before the deferred requests of others wait.
    server.deferred_requests =
        std::make_unique<DeferredRequests>(*server.copiers, 4 * options.max_threads, per_user);
  } catch (const std::exception& e) {
    fmt::print(stderr, "cryptoaccel devcrypto: {}\n", e.what());
    status = 1;
  }
  if (status == 0) {
    fuse_loop_config* config = fuse_loop_cfg_create();
    fuse_loop_cfg_set_max_threads(config, options.max_threads);
    // Idle workers stay: libfuse otherwise ends a worker that finds another
    // idle and starts one again on the next burst, a thread per request in
    // the worst case (milliseconds each in an emulated guest).
    fuse_loop_cfg_set_idle_threads(config, options.max_threads);
    const int loop = fuse_session_loop_mt(session, config);
    fuse_loop_cfg_destroy(config);
    status = loop == 0 || stopped_by_signal(loop) ? 0 : 1;
  }
  // Before the device goes: the requests still waiting on a copier or for
  // a slot are answered (ECANCELED), whatever their clients' memory does.
  if (server.deferred_requests != nullptr) server.deferred_requests->stop();
  cuse_lowlevel_teardown(session);
  {
    std::lock_guard lock(server.mutex);
    server.clients.clear();  // every session still open ends here; keys are wiped
    for (auto& [fh, ph] : server.poll_handles) fuse_pollhandle_destroy(ph);
    server.poll_handles.clear();
  }
  server.deferred_requests.reset();
  server.copiers.reset();
  stop_deadline.reset();
  return status;
}

}  // namespace cryptoaccel::devcrypto
