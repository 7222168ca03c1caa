// The device node /dev/<name> of the server: which names may be served, and
// how the node CUSE made gets the mode and owner asked for without touching
// any other file. Issue 15 found `--name .` turning /dev into 0700 and
// `--name null` handing the real /dev/null to another user: a name is a
// plain name that nothing holds yet, and the node is changed only once it is
// proved to be the character device the kernel made for us.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace cryptoaccel::devcrypto {

// The longest name served: CUSE's DEVNAME becomes a sysfs and /dev entry.
inline constexpr std::size_t kMaxDeviceName = 64;

// Empty when `name` is a plain device name (letters, digits, '-', '_', '.',
// '+', not starting with '.' or '-', at most kMaxDeviceName); else why not.
std::string device_name_problem(std::string_view name);

// Empty when `name` is plain and `<dir>/<name>` does not exist (a symlink,
// even a dangling one, exists); else the message that refuses it.
std::string device_node_problem(const std::string& dir, std::string_view name);

// The device number the kernel gave the CUSE device `name`, from
// /sys/class/cuse/<name>/dev; nullopt when there is none.
std::optional<dev_t> cuse_device_number(std::string_view name);

// Gives `<dir>/<name>` `mode` and, unless -1, `uid` and `gid`, if and only if
// it is a character device numbered `expected` (never following a symlink:
// the node is opened O_PATH|O_NOFOLLOW and changed through that descriptor).
// Returns empty on success, else why nothing was changed.
std::string adopt_device_node(const std::string& dir, std::string_view name, dev_t expected,
                              mode_t mode, uid_t uid, gid_t gid);

}  // namespace cryptoaccel::devcrypto
