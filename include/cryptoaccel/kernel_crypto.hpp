// What the kernel's own users of crypto get: IPsec (XFRM), dm-crypt,
// fscrypt and the rest never pass through userland, so cryptoaccel cannot
// serve them, but it can say which implementation the kernel picks for each
// of their algorithms, whether that is an accelerator, and what loading an
// accelerator's module would change. `cryptoaccel list --kernel` prints it.
#pragma once

#include <string>
#include <vector>

namespace cryptoaccel {

// One implementation of a kernel algorithm, as /proc/crypto describes it.
struct KernelImplementationInfo {
  std::string driver;  // "cbc-aes-aesni", "authenc(hmac(sha256-generic),cbc(aes-generic))"
  std::string module;  // "aesni_intel", "kernel"
  int priority = 0;
  bool selftest_passed = false;
  bool hardware = false;  // it, or one of the implementations it is built of, is an accelerator
  // For a template instance built of an accelerator's implementation: which
  // ("cbc(aes) on virtio_crypto_aes_cbc").
  std::string hardware_part;
};

// One algorithm, by the generic name the kernel's users ask for.
struct KernelAlgorithmChoice {
  std::string name;  // "authenc(hmac(sha256),cbc(aes))", "rfc4106(gcm(aes))", "xts(aes)"
  std::string type;  // "aead", "skcipher", "ahash", "shash", "akcipher", ...
  // Which of the kernel's users ask for this name ("IPsec ESP", "dm-crypt,
  // fscrypt"); empty for a name none of them is known to use.
  std::string used_by;
  // The one a user of the generic name gets: the highest priority of those
  // that passed their self-test. `chosen_known` false when none did.
  bool chosen_known = false;
  KernelImplementationInfo chosen;
  // The others, highest priority first (an accelerator outranked shows here).
  std::vector<KernelImplementationInfo> others;
};

// An accelerator's kernel module that would serve a device present on this
// machine, but is not loaded.
struct UnloadedAccelerator {
  std::string module;  // "virtio_crypto"
  std::string device;  // "/sys/bus/virtio/devices/virtio3"
  // What this kernel's module is known to register (from its source, by
  // version) and what that would change: "cbc(aes): virtio_crypto_aes_cbc at
  // priority 150 would replace cbc(aes-generic) (100)". Empty when unknown.
  std::vector<std::string> would_change;
};

struct KernelCryptoView {
  bool readable = false;  // /proc/crypto could be read
  // The names the kernel's users ask for were instantiated first (through
  // AF_ALG): /proc/crypto lists a template instance only once something
  // has asked for it.
  bool instantiated = false;
  std::string instantiate_note;  // why not, when not
  std::vector<KernelAlgorithmChoice> algorithms;  // by name
  std::vector<UnloadedAccelerator> unloaded;
};

// Reads /proc/crypto (after asking the kernel for its users' algorithms
// through AF_ALG, which instantiates their templates), the devices under
// /sys/bus and the module aliases of the running kernel.
KernelCryptoView kernel_crypto_view();

}  // namespace cryptoaccel
