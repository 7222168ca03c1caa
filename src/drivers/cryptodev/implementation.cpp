#include "implementation.hpp"

#include <cstring>
#include <string_view>
#include <vector>

#include "cryptoaccel/session.hpp"
#include "kernel/accelerators.hpp"

namespace cryptoaccel::cryptodev {
namespace {

std::string text_of(const char (&field)[kMaxAlgorithmName]) {
  return std::string(field, strnlen(field, sizeof field));
}

// A key of the algorithm's default length that no implementation refuses as
// weak: distinct bytes (XTS halves differ, 3DES thirds differ).
std::vector<std::uint8_t> probe_key(const Algorithm& a) {
  const std::size_t n = a.kind == AlgorithmKind::mac ? 16 : a.key_size.min;
  std::vector<std::uint8_t> key(n);
  for (std::size_t i = 0; i < n; ++i) key[i] = static_cast<std::uint8_t>(0x11 + 7 * i);
  return key;
}

}  // namespace

DriverKind kind_of(std::string_view driver, bool hardware_flag) noexcept {
  return hardware_flag || kernel::is_kernel_accelerator(driver) ? DriverKind::hardware
                                                                : DriverKind::software;
}

std::optional<Implementation> find_implementation(const std::shared_ptr<Device>& device,
                                                  const Algorithm& algorithm) {
  auto key = probe_key(algorithm);
  DeviceSession session;
  const int created = session.create(device, algorithm.id, key);
  secure_wipe(key.data(), key.size());
  if (created != 0) return std::nullopt;
  SessionInfoOp info{};
  if (session.info(info) != 0) return std::nullopt;
  const AlgInfo& which =
      algorithm.kind == AlgorithmKind::cipher || algorithm.kind == AlgorithmKind::aead
          ? info.cipher_info
          : info.hash_info;
  Implementation found{.name = text_of(which.cra_name),
                       .driver = text_of(which.cra_driver_name),
                       .hardware_flag = (info.flags & kSessionInfoHardware) != 0};
  if (found.driver.empty()) return std::nullopt;
  found.kind = kind_of(found.driver, found.hardware_flag);
  found.our_server = found.driver.starts_with(kServerDriverPrefix);
  if (algorithm.kind == AlgorithmKind::cipher && algorithm.mode == CipherMode::xts) {
    std::uint8_t data[17] = {}, iv[16] = {};
    CryptOp op{.ses = session.id(), .op = kEncrypt, .len = sizeof data};
    op.src = op.dst = address(data);
    op.iv = address(iv);
    found.partial_blocks = device_ioctl(*device, kCiocCrypt, &op) == 0;
  }
  return found;
}

int priority_of(const Implementation& implementation) noexcept {
  // No priority crosses the ABI. Below soft (100), so that a software
  // implementation behind an ioctl is never preferred to libcrypto in this
  // process; an engine comes first under the `offload` policy anyway.
  if (implementation.our_server) return 10;
  return implementation.kind == DriverKind::hardware ? 90 : 50;
}

std::string describe(const Implementation& implementation, const std::string& path) {
  // Composed with std::string_view pieces: GCC 12 at -O3 reports a false
  // -Wrestrict inside libstdc++ for string operator+ and assign from a
  // literal here (GCC bug 105329), which a Release build turns into an error.
  using namespace std::string_view_literals;
  std::string text;
  const auto add = [&text](std::string_view piece) { text.append(piece.data(), piece.size()); };
  if (implementation.our_server) {
    add("'"sv);
    add(std::string_view(implementation.driver).substr(kServerDriverPrefix.size()));
    add("' served by `cryptoaccel devcrypto` (CUSE) through "sv);
    add(path);
    add("; pinned use only"sv);
  } else {
    add("kernel "sv);
    add(implementation.name);
    add(" implementation '"sv);
    add(implementation.driver);
    add("' through "sv);
    add(path);
    add(" (cryptodev-linux)"sv);
  }
  add(implementation.hardware_flag ? ", hardware-only driver flag set"sv : ", no hardware flag"sv);
  return text;
}

}  // namespace cryptoaccel::cryptodev
