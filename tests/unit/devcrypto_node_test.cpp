// The device node of `cryptoaccel devcrypto` (issue 15, item 5): only a
// plain name that does not exist is served, and only the character device
// CUSE made gets the mode and owner asked for, never a file in its place
// and never through a symlink. The nodes are made in a folder of our own
// (mknod needs root: those tests skip without it).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "devcrypto/device_node.hpp"

namespace cryptoaccel::test {
namespace {

using devcrypto::adopt_device_node;
using devcrypto::device_name_problem;
using devcrypto::device_node_problem;

class DevcryptoNode : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "cryptoaccel-node-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path(const char* name) const { return dir_ + "/" + name; }
  struct stat stat_of(const char* name) const {
    struct stat st {};
    EXPECT_EQ(::lstat(path(name).c_str(), &st), 0) << name;
    return st;
  }
  // A character device numbered `devt` at dir/name, mode 0600, root's.
  bool make_node(const char* name, dev_t devt) const {
    return ::mknod(path(name).c_str(), S_IFCHR | 0600, devt) == 0;
  }

  std::string dir_;
  const dev_t ours_ = makedev(511, 0);  // a dynamic major no real device uses here
};

TEST_F(DevcryptoNode, OnlyPlainNamesAreDeviceNames) {
  for (const char* bad : {".", "..", "", "/", "a/b", "../crypto", ".hidden", "-x", "a b", "a\nb",
                          "crypto*", "nul\x01l"}) {
    const std::string why = device_name_problem(bad);
    EXPECT_FALSE(why.empty()) << "'" << bad << "' accepted";
    EXPECT_LT(why.size(), 200u) << why;
  }
  EXPECT_FALSE(device_name_problem(std::string(devcrypto::kMaxDeviceName + 1, 'c')).empty());
  for (const char* good : {"crypto", "crypto2", "my-crypto_1.0", "c+", "CRYPTO"})
    EXPECT_EQ(device_name_problem(good), "") << good;
  EXPECT_EQ(device_name_problem(std::string(devcrypto::kMaxDeviceName, 'c')), "");
}

TEST_F(DevcryptoNode, ANameThatExistsIsRefusedWhateverItIs) {
  ASSERT_EQ(::symlink("/dev/null", path("link").c_str()), 0);
  ASSERT_EQ(::symlink("no-such-target", path("dangling").c_str()), 0);
  ASSERT_EQ(::mkdir(path("folder").c_str(), 0755), 0);
  const int fd = ::open(path("file").c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ::close(fd);
  for (const char* name : {"link", "dangling", "folder", "file"}) {
    const std::string why = device_node_problem(dir_, name);
    EXPECT_NE(why.find("exists already"), std::string::npos) << name << ": " << why;
  }
  EXPECT_NE(device_node_problem(dir_, "link").find("symbolic link"), std::string::npos);
  EXPECT_NE(device_node_problem(dir_, ".").find("not a device name"), std::string::npos);
  EXPECT_EQ(device_node_problem(dir_, "crypto"), "") << "a free name is served";
  // The real ones of the issue.
  EXPECT_NE(device_node_problem("/dev", "null").find("/dev/null exists already"),
            std::string::npos);
  EXPECT_NE(device_node_problem("/dev", ".").find("not a device name"), std::string::npos);
}

TEST_F(DevcryptoNode, OurNodeGetsTheModeAndOwnerAskedFor) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  ASSERT_TRUE(make_node("crypto", ours_));
  EXPECT_EQ(adopt_device_node(dir_, "crypto", ours_, 0640, 65534, 65534), "");
  const struct stat st = stat_of("crypto");
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_gid, 65534u);
  // -1 leaves the owner as it is.
  EXPECT_EQ(adopt_device_node(dir_, "crypto", ours_, 0666, static_cast<uid_t>(-1),
                              static_cast<gid_t>(-1)),
            "");
  EXPECT_EQ(stat_of("crypto").st_mode & 07777, 0666u);
  EXPECT_EQ(stat_of("crypto").st_uid, 65534u);
}

TEST_F(DevcryptoNode, AnotherDeviceInItsPlaceIsLeftAlone) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  ASSERT_TRUE(make_node("crypto", makedev(1, 3)));  // what /dev/null is
  const std::string why = adopt_device_node(dir_, "crypto", ours_, 0700, 65534, 65534);
  EXPECT_NE(why.find("not the CUSE device"), std::string::npos) << why;
  const struct stat st = stat_of("crypto");
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_uid, 0u);
}

TEST_F(DevcryptoNode, ASymlinkInItsPlaceIsNotFollowed) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  // Even a link to a node with our very number: the link is not our node.
  ASSERT_TRUE(make_node("target", ours_));
  ASSERT_EQ(::symlink(path("target").c_str(), path("crypto").c_str()), 0);
  const std::string why = adopt_device_node(dir_, "crypto", ours_, 0666, 65534, 65534);
  EXPECT_NE(why.find("symbolic link"), std::string::npos) << why;
  const struct stat target = stat_of("target");
  EXPECT_EQ(target.st_mode & 07777, 0600u);
  EXPECT_EQ(target.st_uid, 0u);
  const struct stat link = stat_of("crypto");
  EXPECT_EQ(link.st_uid, 0u);
}

TEST_F(DevcryptoNode, AFileOrFolderInItsPlaceIsLeftAlone) {
  const int fd = ::open(path("crypto").c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ::close(fd);
  EXPECT_NE(adopt_device_node(dir_, "crypto", ours_, 0600, 65534, 65534).find("not the device"),
            std::string::npos);
  EXPECT_EQ(stat_of("crypto").st_mode & 07777, 0644u);
  ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);
  EXPECT_NE(adopt_device_node(dir_, ".", ours_, 0700, 65534, 65534), "");
  EXPECT_EQ(stat_of(".").st_mode & 07777, 0755u) << "the folder itself is never changed";
  EXPECT_NE(adopt_device_node(dir_, "missing", ours_, 0600, 65534, 65534), "");
}

}  // namespace
}  // namespace cryptoaccel::test
