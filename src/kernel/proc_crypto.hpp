// /proc/crypto: every crypto implementation the kernel has instantiated, with
// its generic name ("cbc(aes)"), driver name ("cbc-aes-aesni"), priority,
// module, type and self-test result.
#pragma once

#include <istream>
#include <string>
#include <vector>

namespace cryptoaccel::kernel {

struct KernelImplementation {
  std::string name;    // generic name: what AF_ALG binds to for "the best"
  std::string driver;  // this implementation: what AF_ALG binds to for "this one"
  std::string module;
  std::string type;  // skcipher, aead, ahash, shash, cipher, rng, ...
  int priority = 0;
  bool selftest_passed = false;
  bool internal = false;  // not reachable from userland
  bool async = false;
  unsigned min_keysize = 0, max_keysize = 0, ivsize = 0, maxauthsize = 0, digestsize = 0,
           blocksize = 0;
};

// Parses the text of /proc/crypto (blocks of "key : value" lines separated
// by blank lines). Unknown keys are ignored.
std::vector<KernelImplementation> parse_proc_crypto(std::istream& in);

// Reads /proc/crypto; empty when it cannot be read.
std::vector<KernelImplementation> read_proc_crypto();

}  // namespace cryptoaccel::kernel
