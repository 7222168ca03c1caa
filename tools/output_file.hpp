// `-o FILE` for the commands that write one (rng, calibrate): FILE is written
// as the shell's `> FILE` would write it, or refused with "FILE: reason",
// and nothing else changes. See docs/rng.md.
//
// - A device, FIFO or socket (after following symlinks) is opened for
//   writing, as `>` opens it, and written directly: no temporary, no rename.
// - A regular file, or a name that does not exist yet, is written whole or
//   not at all: into a temporary FILE.XXXXXX beside it (beside the symlink's
//   target for a symlink), fsync'ed, given the old file's mode, owner and
//   group (a new file: 0666 & ~umask, as `>` gives), then renamed over it.
//   An existing file `>` could not open for writing is refused first
//   ("FILE: Permission denied"), as is one whose owner could not be kept.
// - The temporary is removed on every error, when the object is destroyed
//   without commit(), and on SIGINT, SIGTERM, SIGHUP and SIGPIPE while it
//   exists (the handler unlinks it, then the signal kills as by default).
#pragma once

#include <cstddef>
#include <string>

namespace cryptoaccel::tools {

class OutputFile {
 public:
  // Opens (or prepares) `path`; throws cryptoaccel::Error "PATH: reason".
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(const void* data, std::size_t size);
  // Makes the bytes written the file's content; throws on failure, leaving
  // the old file in place.
  void commit();

 private:
  void discard() noexcept;

  std::string path_;    // as given, for messages
  std::string target_;  // the regular file replaced (symlinks followed)
  int fd_ = -1;
  bool temporary_ = false;  // writing a temporary renamed over target_
};

}  // namespace cryptoaccel::tools
