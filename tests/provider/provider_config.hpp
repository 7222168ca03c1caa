// An openssl.cnf for the in-process provider tests: cryptoaccel.so from the
// build (CRYPTOACCEL_PROVIDER_DIR), activated with `settings` (lines of its
// section), and OpenSSL's default provider beside it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace cryptoaccel::test {

// Writes the file (in the test temporary directory, named after `name` and
// the process) and returns its path.
inline std::string write_provider_config(const std::string& name, const std::string& settings) {
  const std::string path = testing::TempDir() + name + "-" + std::to_string(getpid()) + ".cnf";
  std::ofstream(path) << "openssl_conf = openssl_init\n[openssl_init]\n"
                         "providers = provider_sect\n[provider_sect]\n"
                         "cryptoaccel = cryptoaccel_sect\ndefault = default_sect\n"
                         "[cryptoaccel_sect]\nmodule = " CRYPTOACCEL_PROVIDER_DIR
                         "/cryptoaccel.so\nactivate = 1\n"
                      << settings << "[default_sect]\nactivate = 1\n";
  return path;
}

}  // namespace cryptoaccel::test
