// RsaKey::keep_in_kernel_keyring: the private key handed to the kernel and
// forgotten here, so that a process that is read (a core dump, a bug that
// leaks memory, ptrace by the same user) no longer gives it away. It lives
// with the keyring driver because the keyring driver alone can use it.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "cryptoaccel/driver/rsa_key_blob.hpp"
#include "cryptoaccel/rsa.hpp"
#include "kernel_keys.hpp"

namespace cryptoaccel {
namespace {

std::string stored_key_description() {
  static std::atomic<unsigned> counter{0};
  return "cryptoaccel:" + std::to_string(getpid()) + ":stored:" + std::to_string(counter++);
}

}  // namespace

void RsaKey::keep_in_kernel_keyring() {
  if (kernel_key_ != nullptr) return;
  const auto view = read_rsa_key_blob(blob_.span());
  if (!view || view->form != RsaKeyForm::private_key)
    throw InvalidKey("RSA key: only a private key is kept in the kernel keyring");
  // Shared with the children this thread forks (pre-forking servers load
  // keys in the master and sign in the workers): kernel_keys.hpp.
  const keyring::KeyResult ring = keyring::shared_keyring();
  if (!ring) throw Unsupported("RSA key: no keyring for the key: " + keyring::describe(ring.error));
  const auto ring_serial = static_cast<keyring::KeySerial>(ring.value);
  const keyring::KeyResult added =
      keyring::add_private_key(stored_key_description(), view->der, ring_serial);
  if (!added)
    throw Unsupported("RSA key: the kernel keyring did not take the key: " +
                      keyring::describe(added.error));
  const auto serial = static_cast<keyring::KeySerial>(added.value);
  auto owner = std::make_shared<const keyring::KernelKey>(serial, ring_serial);
  const keyring::KeyResult bits = keyring::query_key_bits(serial, "enc=raw");
  if (!bits || static_cast<std::size_t>(bits.value) != bits_)
    throw Unsupported("RSA key: the kernel does not report the key as " + std::to_string(bits_) +
                      " bits" + (bits ? "" : ": " + keyring::describe(bits.error)));

  const std::vector<std::uint8_t> spki = public_der();
  std::vector<std::uint8_t> blob(kRsaKeyBlobHeader + kRsaKernelSerialBytes + spki.size());
  blob[0] = static_cast<std::uint8_t>(RsaKeyForm::kernel_key);
  blob[1] = blob_.data()[1];
  blob[2] = blob_.data()[2];
  const auto s = static_cast<std::uint32_t>(serial);
  blob[3] = static_cast<std::uint8_t>(s >> 24);
  blob[4] = static_cast<std::uint8_t>(s >> 16);
  blob[5] = static_cast<std::uint8_t>(s >> 8);
  blob[6] = static_cast<std::uint8_t>(s);
  std::copy(spki.begin(), spki.end(), blob.begin() + kRsaKeyBlobHeader + kRsaKernelSerialBytes);
  blob_.assign(blob);  // wipes the PKCS#8 first
  kernel_key_ = std::move(owner);
}

}  // namespace cryptoaccel
