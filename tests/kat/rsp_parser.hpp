// A parser for the text format of NIST CAVP response files (.rsp) and of the
// RFC/OpenSSL/BoringSSL vector files that follow the same shape:
//
//   # a comment                 (whole line)
//   [ENCRYPT]                   a section, in force until the next one
//   [Keylen = 128]              a bracket parameter, in force until changed
//   COUNT = 0                   a field; "KEY= ab" (no space) is a field too
//   FAIL                        a bare word (a flag of the record)
//                               blank lines end a record
//
// The parser knows nothing about what the fields mean: vector_loader.cpp
// does. Names are looked up ignoring case, because the files disagree
// ("Count" in GCM files, "COUNT" elsewhere).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cryptoaccel::kat {

using ByteVector = std::vector<std::uint8_t>;

struct RspField {
  std::string name;
  std::string value;  // trimmed; may be empty ("CT = ")
  std::size_t line = 0;
};

struct RspRecord {
  std::size_t line = 0;  // 1-based line of the record's first field or flag
  std::string section;   // "ENCRYPT", or "" before any section
  std::vector<std::pair<std::string, std::string>> params;  // bracket parameters in force
  std::vector<RspField> fields;                             // in file order
  std::vector<std::string> flags;                           // bare words ("FAIL")

  // The first field with this name (ignoring case), or null.
  const RspField* field(std::string_view name) const noexcept;
  // The value of the first of `names` that is present, or null.
  const std::string* value(std::initializer_list<std::string_view> names) const noexcept;
  const std::string* param(std::string_view name) const noexcept;
  bool has_flag(std::string_view word) const noexcept;
};

std::vector<RspRecord> parse_rsp(std::string_view text);

// Reads and parses a file; throws std::runtime_error naming the file when it
// cannot be read.
std::vector<RspRecord> parse_rsp_file(const std::filesystem::path& path);

// A field value as bytes: hex digits (either case), or a double-quoted string
// whose characters are the bytes themselves (BoringSSL's files write ASCII
// inputs that way). Null when the value is neither.
std::optional<ByteVector> rsp_bytes(std::string_view value);

// Lower-case hex, for failure messages.
std::string to_hex(std::span<const std::uint8_t> bytes);

bool equal_ignoring_case(std::string_view a, std::string_view b) noexcept;

}  // namespace cryptoaccel::kat
