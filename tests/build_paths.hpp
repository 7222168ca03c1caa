// Paths of one build and its source tree that tests (and the build tree's
// own command) need at run time. They
// are defined in a file CMake generates per target (cmake/BuildPaths.cmake),
// not passed as compile definitions, so that no other object's compile line
// names a folder of one clone and every clean build finds it in the cache.
// A target defines only the paths it uses.
#pragma once

namespace cryptoaccel::build_paths {

extern const char* const kCli;             // the built `cryptoaccel` command
extern const char* const kFuzzFindings;    // tests/fuzz/findings of the source tree
extern const char* const kProjectVectors;  // tests/data: vectors Debian's package lacks
extern const char* const kProvider;        // the built provider module

}  // namespace cryptoaccel::build_paths
