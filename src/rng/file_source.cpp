// A file or standard input: data someone else produced, tested as read.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "fd_source.hpp"

namespace cryptoaccel::rng {

RandomSourceInfo describe_file(std::string_view path) {
  const bool stdin_ = path == "-";
  return {.name = stdin_ ? "stdin" : "file:" + std::string(path),
          .kind = RandomSourceKind::input,
          .description = stdin_ ? "standard input" : "the file " + std::string(path),
          .available = true,
          .detail = {},
          .entropy_per_sample = kClaimedEntropyPerByte};
}

std::unique_ptr<RawSource> open_file(std::string_view path) {
  if (path.empty()) throw InvalidArgument("file source: empty path (want file:PATH)");
  if (path == "-") {
    // A duplicate, so that closing the source leaves stdin open.
    kernel::Fd fd(::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0));
    if (!fd.valid()) throw DriverFailure("stdin: " + system_error_text(errno));
    return std::make_unique<FdSource>(std::move(fd), "stdin", true);
  }
  const std::string p(path);
  kernel::Fd fd(::open(p.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) throw DriverFailure("file:" + p + ": " + system_error_text(errno));
  return std::make_unique<FdSource>(std::move(fd), "file:" + p, true);
}

}  // namespace cryptoaccel::rng
