// Starting DPDK's EAL inside someone else's process: once, quietly, and
// without taking the caller's thread. rte_eal_init() pins the calling
// thread to the main lcore's CPU and logs to stderr; an application that
// asked for a crypto driver expects neither, so the thread's CPU set is
// restored afterwards and EAL's log is read into the message, not printed.
// Where the application started EAL itself, EAL is shared: its log stays
// the application's, its devices stay its own, and cryptoaccel adds and
// uses the devices its own arguments name that EAL does not have yet.
#include "eal.hpp"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <rte_cryptodev.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

namespace cryptoaccel::dpdk_backend {
namespace {

std::mutex start_mutex;
bool attempted = false;
int outcome = -1;
// The strings live on the heap and are never freed: DPDK's own threads may
// still log while exit() runs the library's static destructors.
std::string& first_arguments = *new std::string;
std::string& outcome_message = *new std::string;
std::atomic<pid_t> started_in{0};
// Set in a child of fork(): getpid() per request would be a system call.
std::atomic<bool> forked{false};
// EAL was started by the application: see the file's comment.
std::atomic<bool> shared{false};

// A device the arguments name: --vdev NAME[,ARGS], -a/--allow ADDRESS[,ARGS].
struct NamedDevice {
  std::string name, args;
  bool virtual_device;
};
std::vector<NamedDevice>& named_devices = *new std::vector<NamedDevice>;
// Shared EAL: the devices added for cryptoaccel (by their bus names).
std::vector<std::string>& added_devices = *new std::vector<std::string>;

std::vector<NamedDevice> devices_named_by(int argc, char** argv) {
  std::vector<NamedDevice> named;
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    const bool has_next = i + 1 < argc;
    std::string_view value;
    bool virtual_device = false;
    if (word == "--vdev" && has_next) {
      value = argv[++i];
      virtual_device = true;
    } else if (word.starts_with("--vdev=")) {
      value = word.substr(7);
      virtual_device = true;
    } else if ((word == "-a" || word == "--allow") && has_next) {
      value = argv[++i];
    } else if (word.starts_with("--allow=")) {
      value = word.substr(8);
    } else if (word.starts_with("-a") && !word.starts_with("--")) {
      value = word.substr(2);
    } else {
      continue;
    }
    const std::size_t comma = value.find(',');
    named.push_back(
        {std::string(value.substr(0, comma)),
         comma == std::string_view::npos ? std::string() : std::string(value.substr(comma + 1)),
         virtual_device});
  }
  return named;
}

std::string joined(int argc, char** argv) {
  std::string text;
  for (int i = 1; i < argc; ++i) {
    if (!text.empty()) text += ' ';
    text += argv[i];
  }
  return text;
}

void copy_message(const std::string& text, char* message, std::size_t size) {
  if (size == 0) return;
  std::snprintf(message, size, "%s", text.c_str());
}

// `head`, `middle` and `tail` in `message`, the middle shortened (its end
// kept, marked "...") so that the tail, which says what happened, is never
// cut off by a long argument list.
void copy_message(const std::string& head, const std::string& middle, const std::string& tail,
                  char* message, std::size_t size) {
  if (size == 0) return;
  const std::size_t room = size - 1, fixed = head.size() + tail.size();
  if (fixed + middle.size() <= room || fixed + 3 >= room) {
    copy_message(head + middle + tail, message, size);
    return;
  }
  copy_message(head + "..." + middle.substr(middle.size() - (room - fixed - 3)) + tail, message,
               size);
}

// DPDK's log, kept instead of printed: an application that asked for a
// crypto driver did not ask for DPDK's lines on its stderr. The last line
// is kept for the messages of failures.
std::mutex log_mutex;
std::string& log_line = *new std::string;
std::string& last_log_line = *new std::string;
// The lines of EAL's start, for its outcome's message (a --vdev whose probe
// failed, while EAL itself started).
constexpr std::size_t kStartLinesKept = 4;
std::vector<std::string>& start_lines = *new std::vector<std::string>;

ssize_t keep_log(void*, const char* text, std::size_t size) {
  const std::lock_guard lock(log_mutex);
  for (std::size_t i = 0; i < size; ++i) {
    if (text[i] == '\n') {
      if (!log_line.empty()) {
        last_log_line = log_line;
        if (start_lines.size() < kStartLinesKept) start_lines.push_back(log_line);
      }
      log_line.clear();
    } else if (log_line.size() < 240) {
      log_line += text[i];
    }
  }
  return static_cast<ssize_t>(size);
}

FILE* kept_log_stream() {
  static FILE* stream = [] {
    cookie_io_functions_t functions{};
    functions.write = keep_log;
    FILE* f = fopencookie(nullptr, "w", functions);
    if (f != nullptr) setvbuf(f, nullptr, _IONBF, 0);
    return f;
  }();
  return stream;
}

void keep_dpdk_log() {
  if (FILE* stream = kept_log_stream()) rte_openlog_stream(stream);
}

std::string start_lines_text() {
  const std::lock_guard lock(log_mutex);
  std::string text;
  for (const std::string& line : start_lines) text += (text.empty() ? "" : "; ") + line;
  start_lines.clear();
  return text;
}

// rte_vdev_init(), from the virtual bus EAL loaded as a plugin (the
// backend does not link the bus itself); null where it is not loaded.
using VdevInit = int (*)(const char*, const char*);
VdevInit vdev_init() {
  void* bus = dlopen("librte_bus_vdev.so.23", RTLD_NOW | RTLD_NOLOAD);
  if (bus == nullptr) return nullptr;
  auto* init = reinterpret_cast<VdevInit>(dlsym(bus, "rte_vdev_init"));
  dlclose(bus);  // EAL keeps it loaded
  return init;
}

// Shared EAL: the devices the arguments name that the application's EAL
// has not, added now. Returns what failed.
std::string add_named_devices() {
  std::string failures;
  const VdevInit init_vdev = vdev_init();
  for (const NamedDevice& d : named_devices) {
    if (rte_cryptodev_get_dev_id(d.name.c_str()) >= 0) continue;
    const int added =
        d.virtual_device
            ? (init_vdev != nullptr ? init_vdev(d.name.c_str(), d.args.c_str()) : -ENOSYS)
            : rte_dev_probe((d.name + (d.args.empty() ? "" : "," + d.args)).c_str());
    if (added == 0)
      added_devices.push_back(d.virtual_device || d.name.starts_with("0000:") ? d.name
                                                                              : "0000:" + d.name);
    else
      failures += (failures.empty() ? "" : ", ") + d.name + " could not be added (" +
                  std::strerror(-added) + ")";
  }
  return failures;
}

int start_once(int argc, char** argv) {
  // EAL logs at INFO by default ("EAL: Detected CPU lcores..."): only
  // errors, unless the caller's own --log-level, which comes later, says
  // otherwise.
  std::vector<std::string> arguments{argc > 0 ? argv[0] : "cryptoaccel", "--log-level=error"};
  for (int i = 1; i < argc; ++i) arguments.emplace_back(argv[i]);
  std::vector<char*> eal_argv;
  for (auto& a : arguments) eal_argv.push_back(a.data());
  eal_argv.push_back(nullptr);

  cpu_set_t cpus;
  const bool have_cpus = pthread_getaffinity_np(pthread_self(), sizeof cpus, &cpus) == 0;
  // An application that started EAL keeps its log stream: put back if EAL
  // turns out to be running already.
  FILE* const application_log = rte_log_get_stream();
  keep_dpdk_log();
  start_lines_text();  // forget what came before
  // EAL prints its usage with printf when it refuses its arguments (the
  // driver refuses unknown options before, but not every combination EAL
  // rejects), its fatal errors with fprintf to stderr, and as it starts
  // its log goes to standard output; both streams are the application's:
  // an `openssl enc` writes its ciphertext to one. During the call stdio's
  // stdout is a sink and its stderr the kept log (glibc's are assignable);
  // what another thread printed through stdio in that moment would be lost
  // with them, a window of EAL's start only. Descriptors 1 and 2 are left
  // alone.
  FILE* const application_stdout = stdout;
  FILE* const application_stderr = stderr;
  FILE* const sink = std::fopen("/dev/null", "w");
  if (sink != nullptr) stdout = sink;
  if (FILE* kept = kept_log_stream()) stderr = kept;
  const int parsed = rte_eal_init(static_cast<int>(eal_argv.size() - 1), eal_argv.data());
  const int error = rte_errno;
  stderr = application_stderr;
  if (sink != nullptr) {
    stdout = application_stdout;
    std::fclose(sink);
  }
  if (have_cpus) pthread_setaffinity_np(pthread_self(), sizeof cpus, &cpus);
  const std::string said = start_lines_text();

  if (parsed < 0 && error == EALREADY) {
    shared.store(true, std::memory_order_relaxed);
    // What the PMDs say of the devices added goes to the kept log too.
    const std::string failures = add_named_devices();
    rte_openlog_stream(application_log);
    outcome_message =
        "EAL was already running in this process (started by the application, or another copy "
        "of cryptoaccel): shared; its devices are left to it, and those these arguments name "
        "that it lacks were added" +
        (failures.empty() ? std::string() : "; " + failures);
    return 0;
  }
  // EAL points its log back at its own stream as it starts.
  keep_dpdk_log();
  if (parsed >= 0) {
    outcome_message = "EAL started with: " + joined(argc, argv) +
                      (said.empty() ? std::string() : " (DPDK said: " + said + ")");
    return 0;
  }
  outcome_message = "rte_eal_init failed" +
                    (error != 0 ? " (" + std::string(std::strerror(error)) + ")" : std::string()) +
                    (said.empty() ? std::string() : ": " + said);
  return -1;
}

}  // namespace

int start_eal(int argc, char** argv, char* message, std::size_t message_size) {
  const std::lock_guard lock(start_mutex);
  const std::string arguments = joined(argc, argv);
  if (!attempted) {
    attempted = true;
    first_arguments = arguments;
    named_devices = devices_named_by(argc, argv);
    // EAL cannot start twice in a process, even after a failure.
    outcome = start_once(argc, argv);
    if (outcome == 0) {
      started_in = getpid();
      pthread_atfork(nullptr, nullptr, [] { forked.store(true, std::memory_order_relaxed); });
    }
    copy_message(outcome_message, message, message_size);
    return outcome;
  }
  if (outcome != 0) {
    copy_message(outcome_message + " (EAL starts once per process)", message, message_size);
    return -1;
  }
  if (arguments != first_arguments)
    copy_message("EAL already runs in this process with: ", first_arguments, " (shared)", message,
                 message_size);
  else
    copy_message(outcome_message, message, message_size);
  return 0;
}

void forget_dpdk_log() {
  const std::lock_guard lock(log_mutex);
  log_line.clear();
  last_log_line.clear();
}

std::string last_dpdk_log_line() {
  const std::lock_guard lock(log_mutex);
  return log_line.empty() ? last_log_line : log_line;
}

DpdkLogKept::DpdkLogKept() {
  if (!eal_shared()) return;  // the log is the backend's already
  application_ = rte_log_get_stream();
  keep_dpdk_log();
}

DpdkLogKept::~DpdkLogKept() {
  if (application_ != nullptr) rte_openlog_stream(application_);
}

bool eal_shared() noexcept {
  return shared.load(std::memory_order_relaxed);
}

bool added_for_us(std::string_view device) {
  for (const std::string& d : added_devices)
    if (d == device) return true;
  return false;
}

bool eal_usable_here() noexcept {
  return started_in.load(std::memory_order_relaxed) != 0 && !forked.load(std::memory_order_relaxed);
}

}  // namespace cryptoaccel::dpdk_backend
