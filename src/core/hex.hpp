// Hexadecimal text <-> bytes, for known-answer vectors and tools.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cryptoaccel::detail {

// Decodes upper or lower case hex; null on an odd length or a non-hex digit.
std::optional<std::vector<std::uint8_t>> hex_decode(std::string_view text);

std::string hex_encode(std::span<const std::uint8_t> bytes);

}  // namespace cryptoaccel::detail
