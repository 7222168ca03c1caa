// How each algorithm of our table is named in the kernel crypto API, and
// which AF_ALG socket type serves it. One row per algorithm; those with no
// row have no AF_ALG path.
#pragma once

#include <optional>
#include <string_view>

#include "cryptoaccel/algorithm.hpp"

namespace cryptoaccel::kernel {

enum class SocketType { skcipher, aead, hash };

struct KernelName {
  std::string_view name;       // generic kernel name: "cbc(aes)"
  std::string_view base;       // for templates over a block cipher: "aes" (else empty)
  std::string_view template_;  // "cbc" when `name` is template(base)
  SocketType type;
};

std::optional<KernelName> kernel_name(AlgorithmId id) noexcept;

std::string_view to_string(SocketType type) noexcept;

}  // namespace cryptoaccel::kernel
