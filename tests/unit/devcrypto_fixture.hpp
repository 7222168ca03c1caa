// What the tests of the devcrypto server's protocol share: a framework
// without the cryptodev family (so the server never serves itself), a
// service pinned to soft, a quota and one client.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "devcrypto/client.hpp"
#include "devcrypto/server_quota.hpp"
#include "devcrypto/service.hpp"

namespace cryptoaccel::test {

class DevcryptoServerTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    framework_ = std::make_unique<Framework>(FrameworkOptions{.excluded_families = {"cryptodev"}});
  }
  static void TearDownTestSuite() { framework_.reset(); }
  static std::uint64_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

  static inline std::unique_ptr<Framework> framework_;
  devcrypto::Service service_{*framework_, {.driver = "soft", .max_sessions = 8}};
  devcrypto::ServerQuota quota_{{.open_files = 16, .sessions = 4096}};
  devcrypto::Client client_{quota_, 5000};
};

}  // namespace cryptoaccel::test
