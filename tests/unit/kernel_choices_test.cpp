// The kernel's choice per algorithm (list --kernel) from recorded
// /proc/crypto texts: the highest priority that passed its self-test, an
// accelerator inside a template instance found, internal and untested
// implementations never chosen; accelerator devices whose module is not
// loaded, and what their known registrations would change.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "kernel/kernel_choices.hpp"

namespace cryptoaccel::kernel {
namespace {

// The test bed's guest (Linux 6.1, no AES-NI) after an IPsec SA with
// authenc(hmac(sha256),cbc(aes)) was set up.
constexpr const char* kGuest = R"(name         : authenc(hmac(sha256),cbc(aes))
driver       : authenc(hmac(sha256-generic),virtio_crypto_aes_cbc)
module       : authenc
priority     : 150
selftest     : passed
internal     : no
type         : aead

name         : cbc(aes)
driver       : virtio_crypto_aes_cbc
module       : virtio_crypto
priority     : 150
selftest     : passed
internal     : no
type         : skcipher

name         : cbc(aes)
driver       : cbc(aes-generic)
module       : kernel
priority     : 100
selftest     : passed
internal     : no
type         : skcipher

name         : rsa
driver       : virtio-crypto-rsa
module       : virtio_crypto
priority     : 150
selftest     : unknown
internal     : no
type         : akcipher

name         : rsa
driver       : rsa-generic
module       : kernel
priority     : 100
selftest     : passed
internal     : no
type         : akcipher

name         : __xts(aes)
driver       : __xts-aes-aesni
module       : aesni_intel
priority     : 401
selftest     : passed
internal     : yes
type         : skcipher

name         : hmac(sha256)
driver       : hmac(sha256-generic)
module       : kernel
priority     : 100
selftest     : passed
internal     : no
type         : shash
)";

std::vector<KernelAlgorithmChoice> choices_of(const char* text) {
  std::istringstream in(text);
  return kernel_choices(parse_proc_crypto(in));
}

const KernelAlgorithmChoice& find(const std::vector<KernelAlgorithmChoice>& all,
                                  const std::string& name) {
  const auto it = std::find_if(all.begin(), all.end(),
                               [&](const KernelAlgorithmChoice& c) { return c.name == name; });
  if (it == all.end()) throw std::runtime_error("no " + name);
  return *it;
}

TEST(KernelChoices, TheHighestPriorityThatPassedItsSelfTest) {
  const auto all = choices_of(kGuest);
  const KernelAlgorithmChoice& cbc = find(all, "cbc(aes)");
  ASSERT_TRUE(cbc.chosen_known);
  EXPECT_EQ(cbc.chosen.driver, "virtio_crypto_aes_cbc");
  EXPECT_TRUE(cbc.chosen.hardware);
  ASSERT_EQ(cbc.others.size(), 1u);
  EXPECT_EQ(cbc.others[0].driver, "cbc(aes-generic)");
  EXPECT_FALSE(cbc.others[0].hardware);
  EXPECT_EQ(cbc.used_by, "dm-crypt, IPsec ESP");
  // An untested implementation is never the kernel's choice.
  const KernelAlgorithmChoice& rsa = find(all, "rsa");
  EXPECT_EQ(rsa.chosen.driver, "rsa-generic");
  EXPECT_TRUE(rsa.used_by.empty());
  // Internal implementations are no userland name at all.
  EXPECT_THROW(find(all, "__xts(aes)"), std::runtime_error);
}

TEST(KernelChoices, AnAcceleratorInsideATemplateInstanceMakesItHardware) {
  const auto all = choices_of(kGuest);
  const KernelAlgorithmChoice& esp = find(all, "authenc(hmac(sha256),cbc(aes))");
  EXPECT_EQ(esp.used_by, "IPsec ESP");
  EXPECT_TRUE(esp.chosen.hardware);
  EXPECT_EQ(esp.chosen.hardware_part, "cbc(aes) on virtio_crypto_aes_cbc");
  EXPECT_FALSE(find(all, "hmac(sha256)").chosen.hardware);
}

TEST(KernelChoices, NoneChosenWhereNothingPassed) {
  const auto all = choices_of(R"(name : rsa
driver : virtio-crypto-rsa
module : virtio_crypto
priority : 150
selftest : unknown
type : akcipher
)");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_FALSE(all[0].chosen_known);
  ASSERT_EQ(all[0].others.size(), 1u);
  EXPECT_FALSE(all[0].others[0].selftest_passed);
}

TEST(KernelChoices, NegativePrioritiesCountAndNamesNoKernelWouldHaveAreLeftOut) {
  const std::string deep(3000, '(');
  const auto all = choices_of((std::string(R"(name : cbc(aes)
driver : cbc(aes-generic)
module : kernel
priority : -5
selftest : passed
type : skcipher

name : cbc(aes)
driver : cbc-aes-other
module : other
priority : -2
selftest : passed
type : skcipher

name : xts(aes)
driver : xts)") + deep + R"(
module : kernel
priority : 100
selftest : passed
type : skcipher
)").c_str());
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].chosen.driver, "cbc-aes-other");
  EXPECT_EQ(all[0].chosen.priority, -2);
}

TEST(UnloadedAccelerators, AnAcceleratorModuleMatchingAPresentDeviceAndNotLoaded) {
  const auto aliases = parse_module_aliases(
      "# Aliases extracted from modules themselves.\n"
      "alias virtio:d00000014v* virtio_crypto\n"
      "alias virtio:d00000001v* virtio_net\n"
      "alias pci:v00008086d00000435sv*sd*bc*sc*i* qat_dh895xcc\n");
  ASSERT_EQ(aliases.size(), 3u);
  const std::vector<PresentDevice> devices = {
      {"/sys/bus/virtio/devices/virtio0", "virtio:d00000014v00001AF4"},
      {"/sys/bus/virtio/devices/virtio1", "virtio:d00000001v00001AF4"}};
  auto twice = aliases;
  twice.push_back(aliases[0]);  // one module and device are listed once
  const auto unloaded = unloaded_accelerators(devices, twice, {"virtio_net"});
  ASSERT_EQ(unloaded.size(), 1u);
  EXPECT_EQ(unloaded[0].module, "virtio_crypto");
  EXPECT_EQ(unloaded[0].device, "/sys/bus/virtio/devices/virtio0");
  EXPECT_TRUE(unloaded_accelerators(devices, aliases, {"virtio_crypto"}).empty());
}

TEST(UnloadedAccelerators, WhatLoadingTheModuleWouldChange) {
  const auto with_aesni = choices_of(R"(name : cbc(aes)
driver : cbc-aes-aesni
module : aesni_intel
priority : 400
selftest : passed
type : skcipher
)");
  const auto unloaded = describe_unloaded(
      {{"virtio_crypto", "/sys/bus/virtio/devices/virtio0"}}, with_aesni, "6.1.0-57-amd64");
  ASSERT_EQ(unloaded.size(), 1u);
  const auto& changes = unloaded[0].would_change;
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0],
            "cbc(aes): virtio_crypto_aes_cbc at priority 150 would stay below cbc-aes-aesni (400)");
  EXPECT_EQ(changes[2],
            "rsa: virtio-crypto-rsa at priority 150 (none now), if the device does raw RSA (the "
            "kernel's self-test then passes)");

  std::istringstream generic_only(R"(name : cbc(aes)
driver : cbc(aes-generic)
module : kernel
priority : 100
selftest : passed
type : skcipher
)");
  const auto replaced = describe_unloaded({{"virtio_crypto", "virtio0"}},
                                          kernel_choices(parse_proc_crypto(generic_only)), "6.1.0");
  EXPECT_EQ(replaced[0].would_change[0],
            "cbc(aes): virtio_crypto_aes_cbc at priority 150 would replace cbc(aes-generic) (100)");
  // A kernel whose registrations are not known here: nothing claimed.
  EXPECT_TRUE(describe_unloaded({{"virtio_crypto", "virtio0"}}, with_aesni, "5.10.0")[0]
                  .would_change.empty());
}

}  // namespace
}  // namespace cryptoaccel::kernel
