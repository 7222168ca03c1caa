// `cryptoaccel rngtest`'s main loop: rng-tools rngtest's behaviour (start-up
// words, blocks, statistics dumps, pipe mode, exit statuses) over input read
// in large chunks and FIPS tests done a word at a time.
#pragma once

#include "options.hpp"

namespace cryptoaccel::tools::rngtest {

// Runs the tests as `options` say; returns rngtest's exit status.
int run(const Options& options);

}  // namespace cryptoaccel::tools::rngtest
