// `cryptoaccel rng -o FILE` and `cryptoaccel calibrate -o FILE` write FILE
// as the shell's `> FILE` would, or refuse with "FILE: reason", and change
// nothing else (issue 15, item 4; tools/output_file.hpp): a device or FIFO
// is written through, not replaced; a regular file keeps its mode and owner;
// a file the user cannot write is refused and left as it was; a signal
// leaves no temporary behind. Runs as root (CI does): it makes device nodes
// and runs the command as `nobody`.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "build_paths.hpp"
#include "test_util.hpp"

namespace {

namespace fs = std::filesystem;

const std::string kCli = cryptoaccel::build_paths::kCli;
const std::string kRng = " rng -n 1K --source getrandom -o ";
// calibrate's smallest run: one driver, algorithm, size and round.
const std::string kCalibrate =
    " calibrate -q --driver soft --algorithms aes-128-cbc --sizes 16 --rounds 1 --seconds 0.01 -o ";
const std::string kNobody = "setpriv --reuid=nobody --regid=nogroup --clear-groups ";

cryptoaccel::test::ShellRun run(const std::string& command) {
  return cryptoaccel::test::run_shell(command + " 2>&1");
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct stat lstat_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st;
}

class OutputFileCli : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0u) << "these tests make device nodes and run as nobody: run as root";
    const passwd* nobody = ::getpwnam("nobody");
    ASSERT_NE(nobody, nullptr);
    nobody_uid_ = nobody->pw_uid;
    nobody_gid_ = nobody->pw_gid;
    dir_ = fs::temp_directory_path() / ("cryptoaccel-output-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  // The names in the directory, sorted, space-separated.
  std::string listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : " ") + n;
    return out;
  }

  fs::path dir_;
  uid_t nobody_uid_ = 0;
  gid_t nobody_gid_ = 0;
};

// As root, `-o /dev/null` left /dev/null a regular file. A node of our own
// (c 1 3, what /dev/null is) stays the device and takes the bytes.
TEST_F(OutputFileCli, DeviceStaysADevice) {
  for (const std::string& command : {kRng, kCalibrate}) {
    ASSERT_EQ(::mknod(path("null").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
    ASSERT_EQ(::chmod(path("null").c_str(), 0666), 0);  // not the umask's
    const auto r = run(kCli + command + path("null"));
    EXPECT_EQ(r.status, 0) << command << r.out;
    const struct stat st = lstat_of(path("null"));
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << command << ": no longer a character device";
    EXPECT_EQ(st.st_rdev, makedev(1, 3)) << command;
    EXPECT_EQ(st.st_mode & 07777, 0666u) << command;
    EXPECT_EQ(listing(), "null") << command;
    fs::remove(path("null"));
  }
}

// A FIFO is opened and written as `>` writes it: the reader gets the bytes.
TEST_F(OutputFileCli, FifoReceivesTheBytes) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  const std::string writer =
      "(" + kCli + " rng -n 100K --source getrandom -o " + path("fifo") + " >&2) & ";
  // timeout: the old code renamed a file over the FIFO and the reader waited forever.
  const auto r =
      cryptoaccel::test::run_shell(writer + "timeout 10 cat " + path("fifo") + " | wc -c; wait $!");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "102400\n");
  EXPECT_TRUE(S_ISFIFO(lstat_of(path("fifo")).st_mode)) << "the FIFO was replaced";
  EXPECT_EQ(listing(), "fifo");

  const std::string json_writer = "(" + kCli + kCalibrate + path("fifo") + " >&2) & ";
  const auto j =
      cryptoaccel::test::run_shell(json_writer + "timeout 10 cat " + path("fifo") + "; wait $!");
  EXPECT_EQ(j.status, 0);
  EXPECT_TRUE(contains(j.out, "\"measurements\"")) << j.out;
  EXPECT_TRUE(S_ISFIFO(lstat_of(path("fifo")).st_mode)) << "the FIFO was replaced";
}

// An existing file keeps its mode, owner and group; a symlink stays a
// symlink and its target gets the bytes.
TEST_F(OutputFileCli, ExistingFileKeepsModeAndOwner) {
  for (const std::string& command : {kRng, kCalibrate}) {
    std::ofstream(path("key")) << "old";
    ASSERT_EQ(::chmod(path("key").c_str(), 0600), 0);
    ASSERT_EQ(::chown(path("key").c_str(), nobody_uid_, nobody_gid_), 0);
    const auto r = run(kCli + command + path("key"));
    EXPECT_EQ(r.status, 0) << command << r.out;
    const struct stat st = lstat_of(path("key"));
    EXPECT_TRUE(S_ISREG(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0600u) << command;
    EXPECT_EQ(st.st_uid, nobody_uid_) << command;
    EXPECT_EQ(st.st_gid, nobody_gid_) << command;
    EXPECT_NE(read_text(path("key")), "old") << command;

    fs::create_symlink("key", path("link"));
    const auto l = run(kCli + command + path("link"));
    EXPECT_EQ(l.status, 0) << command << l.out;
    EXPECT_TRUE(S_ISLNK(lstat_of(path("link")).st_mode)) << command << ": the link was replaced";
    EXPECT_EQ(lstat_of(path("key")).st_mode & 07777, 0600u) << command;
    EXPECT_EQ(listing(), "key link") << command;
    fs::remove(path("link"));
    fs::remove(path("key"));
  }
  // A new file: the mode `>` gives (0666 & ~umask).
  const auto r = run("umask 027; " + kCli + kRng + path("new"));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(lstat_of(path("new")).st_mode & 07777, 0640u);
}

// As nobody, a 0444 file in a directory nobody may write is refused, as
// `>` refuses it, and left as it was; so is a new file in a directory
// nobody may not write.
TEST_F(OutputFileCli, UnwritableFileIsRefusedAndKept) {
  ASSERT_EQ(::chmod(dir_.c_str(), 0777), 0);
  std::ofstream(path("ro")) << "old";
  ASSERT_EQ(::chmod(path("ro").c_str(), 0444), 0);
  const auto shell = run(kNobody + "sh -c 'echo new > " + path("ro") + "'");
  ASSERT_NE(shell.status, 0) << "the shell itself could write it: " << shell.out;
  for (const std::string& command : {kRng, kCalibrate}) {
    const auto r = run(kNobody + kCli + command + path("ro"));
    EXPECT_EQ(r.status, 1) << command << r.out;
    EXPECT_TRUE(contains(r.out, "cryptoaccel: " + path("ro") + ": Permission denied"))
        << command << r.out;
    EXPECT_TRUE(read_text(path("ro")) == "old") << command << ": the file was replaced";
    const struct stat st = lstat_of(path("ro"));
    EXPECT_EQ(st.st_mode & 07777, 0444u) << command;
    EXPECT_EQ(st.st_uid, 0u) << command;
    EXPECT_EQ(listing(), "ro") << command;
  }
  ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);
  const auto created = run(kNobody + kCli + kRng + path("new"));
  EXPECT_EQ(created.status, 1) << created.out;
  EXPECT_TRUE(contains(created.out, "cryptoaccel: " + path("new") + ": Permission denied"))
      << created.out;
  EXPECT_EQ(listing(), "ro");
}

// A signal while `rng -o FILE` writes removes the temporary FILE.XXXXXX and
// leaves an existing FILE as it was. The source is stdin, fed enough for
// its start-up tests and then kept open: rng waits with its temporary made.
TEST_F(OutputFileCli, SignalLeavesNoTemporary) {
  std::ofstream(path("out")) << "old";
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
    int input[2];
    ASSERT_EQ(::pipe(input), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::dup2(input[0], STDIN_FILENO);
      ::close(input[0]);
      ::close(input[1]);
      for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(s, SIG_DFL);
      const std::string out = path("out");
      ::execl(kCli.c_str(), kCli.c_str(), "rng", "-n", "1G", "--source", "stdin", "-o", out.c_str(),
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(input[0]);
    const auto bytes = cryptoaccel::test::random_bytes(60000);  // less than a pipe holds
    ASSERT_EQ(::write(input[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    bool temporary = false;
    for (int i = 0; i < 1000 && !temporary; ++i) {
      temporary = listing() != "out";
      if (!temporary) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(temporary) << "rng made no temporary file";
    ::kill(child, signal);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ::close(input[1]);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal)
        << strsignal(signal) << ": status " << status;
    EXPECT_EQ(listing(), "out") << strsignal(signal) << ": a temporary was left behind";
    EXPECT_TRUE(read_text(path("out")) == "old") << strsignal(signal) << ": the file was replaced";
  }
}

}  // namespace
