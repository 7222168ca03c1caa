// `cryptoaccel speed` as a user runs it: Ctrl-C: what was measured is printed, and the exit is 130.
// Runs are kept tiny (-seconds 0.01 to 0.5, two or three sizes).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <optional>
#include <thread>

#include "build_paths.hpp"
#include "speed_cli_support.hpp"

extern char** environ;

namespace {

using namespace speed_cli;

struct Spawned {
  pid_t pid = -1;
};

Spawned spawn_speed(const std::vector<std::string>& args, const fs::path& out,
                    const fs::path& err) {
  std::vector<std::string> words{cryptoaccel::build_paths::kCli, "speed"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&files, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  // SIGINT neither blocked nor ignored in the child, whatever the test runner did.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, interrupt;
  sigemptyset(&none);
  sigemptyset(&interrupt);
  sigaddset(&interrupt, SIGINT);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &interrupt);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  Spawned s;
  if (posix_spawn(&s.pid, argv[0], &files, &attributes, argv.data(), environ) != 0) s.pid = -1;
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&files);
  return s;
}

// True once the process has installed a handler for SIGINT (SigCgt in
// /proc/PID/status), i.e. once Ctrl-C means "stop and report".
bool catches_sigint(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("SigCgt:", 0) != 0) continue;
    const unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
    return (mask >> (SIGINT - 1)) & 1;
  }
  return false;
}

// Waits up to `limit` for the process to end; kills it and returns nullopt if it does not.
std::optional<int> wait_for(pid_t pid, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int raw = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    const pid_t done = waitpid(pid, &raw, WNOHANG);
    if (done == pid) return raw;
    if (done < 0) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &raw, 0);
  return std::nullopt;
}

struct Interrupted {
  int status = -1;
  double seconds_to_exit = 0;
  std::string out, err;
};

// Starts a run that would take 30 s, sends SIGINT half a second into the
// measurements, and collects what it printed.
Interrupted interrupt_run(const std::string& format) {
  Interrupted result;
  ScratchDir dir;
  const fs::path out = dir.path / "stdout", err = dir.path / "stderr";
  const Spawned child = spawn_speed(
      {"aes-128-cbc", "sha256", "-seconds", "5", "--sizes", "16,64,256", "--format", format}, out,
      err);
  EXPECT_GT(child.pid, 0);
  if (child.pid <= 0) return result;
  // Robust against a slow start: wait for the handler, not for a fixed time.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  int raw = 0;
  while (!catches_sigint(child.pid) && std::chrono::steady_clock::now() < give_up) {
    if (waitpid(child.pid, &raw, WNOHANG) == child.pid) {
      ADD_FAILURE() << "ended before it could be interrupted: " << read_file(err);
      return result;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(catches_sigint(child.pid)) << "no SIGINT handler after 20 s";
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto sent = std::chrono::steady_clock::now();
  kill(child.pid, SIGINT);
  const std::optional<int> ended = wait_for(child.pid, std::chrono::seconds(10));
  result.seconds_to_exit =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  EXPECT_TRUE(ended) << "still running 10 s after SIGINT";
  if (ended) {
    EXPECT_TRUE(WIFEXITED(*ended)) << "killed by a signal instead of exiting: " << *ended;
    result.status = WIFEXITED(*ended) ? WEXITSTATUS(*ended) : -1;
  }
  result.out = read_file(out);
  result.err = read_file(err);
  return result;
}

TEST(SpeedCli, CtrlCPrintsWhatWasMeasuredAndExits130) {
  const Interrupted r = interrupt_run("openssl");
  EXPECT_EQ(r.status, 130) << r.err;
  EXPECT_LT(r.seconds_to_exit, 3.0) << "Ctrl-C should end the run promptly";
  EXPECT_NE(r.err.find("interrupted; what was measured so far"), std::string::npos) << r.err;
  const auto doing = parse_doing(r.err);
  ASSERT_FALSE(doing.empty()) << r.err;
  EXPECT_TRUE(doing.back().interrupted) << r.err;
  EXPECT_LT(doing.back().seconds, 5.0);
  const OpensslTables t = parse_openssl(r.out);
  ASSERT_GE(t.rates.size(), 1u) << r.out;
  EXPECT_EQ(t.rates[0].label, "aes-128-cbc");
  ASSERT_TRUE(t.rates[0].cells.at(0).has_value()) << r.out;
  EXPECT_GT(*t.rates[0].cells[0], 0.0) << r.out;
  // Cut short: not every figure of the 30-second run is there.
  bool missing = t.rates.size() < 2;
  for (const TableRow& row : t.rates)
    for (const auto& cell : row.cells) missing |= !cell.has_value();
  EXPECT_TRUE(missing) << r.out;
}

TEST(SpeedCli, CtrlCWithJsonMarksTheCutShortMeasurement) {
  const Interrupted r = interrupt_run("json");
  EXPECT_EQ(r.status, 130) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_TRUE(j.at("interrupted").get<bool>());
  const Json& results = j.at("results");
  ASSERT_GE(results.size(), 1u);
  EXPECT_LT(results.size(), 6u);
  EXPECT_TRUE(results.back().at("interrupted").get<bool>()) << results.back();
  EXPECT_LT(results.back().at("elapsed_s").get<double>(), 5.0);
  EXPECT_GT(results.back().at("operations").get<double>(), 0);
}

}  // namespace
