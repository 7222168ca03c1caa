// Starting DPDK's EAL inside someone else's process: once, quietly, and
// without taking the caller's thread. rte_eal_init() pins the calling
// thread to the main lcore's CPU and logs to stderr; an application that
// asked for a crypto driver expects neither, so the thread's CPU set is
// restored afterwards and EAL's log is read into the message, not printed.
#include "eal.hpp"

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

// DPDK's log, kept instead of printed: an application that asked for a
// crypto driver did not ask for DPDK's lines on its stderr. The last line
// is kept for the messages of failures.
std::mutex log_mutex;
std::string& log_line = *new std::string;
std::string& last_log_line = *new std::string;

ssize_t keep_log(void*, const char* text, std::size_t size) {
  const std::lock_guard lock(log_mutex);
  for (std::size_t i = 0; i < size; ++i) {
    if (text[i] == '\n') {
      if (!log_line.empty()) last_log_line = log_line;
      log_line.clear();
    } else if (log_line.size() < 240) {
      log_line += text[i];
    }
  }
  return static_cast<ssize_t>(size);
}

void keep_dpdk_log() {
  static FILE* stream = [] {
    cookie_io_functions_t functions{};
    functions.write = keep_log;
    FILE* f = fopencookie(nullptr, "w", functions);
    if (f != nullptr) setvbuf(f, nullptr, _IONBF, 0);
    return f;
  }();
  if (stream != nullptr) rte_openlog_stream(stream);
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
  keep_dpdk_log();
  // EAL prints its usage with printf when it refuses its arguments (the
  // driver refuses unknown options before, but not every combination EAL
  // rejects), and the process's standard output is the application's: an
  // `openssl enc` writes its ciphertext there. During the call, stdio's
  // stdout is a sink (glibc's stdout is assignable); what another thread
  // printed through stdio in that moment would be lost with it, a window
  // of EAL's start only. Descriptor 1 itself is left alone.
  FILE* const application_stdout = stdout;
  FILE* const sink = std::fopen("/dev/null", "w");
  if (sink != nullptr) stdout = sink;
  const int parsed = rte_eal_init(static_cast<int>(eal_argv.size() - 1), eal_argv.data());
  const int error = rte_errno;
  if (sink != nullptr) {
    stdout = application_stdout;
    std::fclose(sink);
  }
  // EAL points its log back at stderr as it starts.
  keep_dpdk_log();
  if (have_cpus) pthread_setaffinity_np(pthread_self(), sizeof cpus, &cpus);

  if (parsed >= 0) {
    outcome_message = "EAL started with: " + joined(argc, argv);
    return 0;
  }
  if (error == EALREADY) {
    outcome_message = "EAL was already running in this process: shared";
    return 0;
  }
  const std::string line = last_dpdk_log_line();
  outcome_message = "rte_eal_init failed (" + std::string(std::strerror(error)) + ")" +
                    (line.empty() ? std::string() : ": " + line);
  return -1;
}

}  // namespace

int start_eal(int argc, char** argv, char* message, std::size_t message_size) {
  const std::lock_guard lock(start_mutex);
  const std::string arguments = joined(argc, argv);
  if (!attempted) {
    attempted = true;
    first_arguments = arguments;
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
    copy_message("EAL already runs in this process with: " + first_arguments + " (shared)", message,
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

bool eal_usable_here() noexcept {
  return started_in.load(std::memory_order_relaxed) != 0 && !forked.load(std::memory_order_relaxed);
}

}  // namespace cryptoaccel::dpdk_backend
