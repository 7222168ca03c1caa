#include "rsp_parser.hpp"

#include "core/hex.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cryptoaccel::kat {
namespace {

// Also strips the '\r' of the CRLF files (the GCM and SHA files are CRLF).
std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

bool equal_ignoring_case(std::string_view a, std::string_view b) noexcept {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

const RspField* RspRecord::field(std::string_view name) const noexcept {
  for (const RspField& f : fields)
    if (equal_ignoring_case(f.name, name)) return &f;
  return nullptr;
}

const std::string* RspRecord::value(std::initializer_list<std::string_view> names) const noexcept {
  for (std::string_view name : names)
    if (const RspField* f = field(name)) return &f->value;
  return nullptr;
}

const std::string* RspRecord::param(std::string_view name) const noexcept {
  for (const auto& [key, val] : params)
    if (equal_ignoring_case(key, name)) return &val;
  return nullptr;
}

bool RspRecord::has_flag(std::string_view word) const noexcept {
  return std::any_of(flags.begin(), flags.end(),
                     [&](const std::string& f) { return equal_ignoring_case(f, word); });
}

std::vector<RspRecord> parse_rsp(std::string_view text) {
  std::vector<RspRecord> records;
  std::string section;
  std::vector<std::pair<std::string, std::string>> params;
  RspRecord current;
  bool open = false;  // does `current` hold at least one field or flag?

  const auto close = [&] {
    if (open) records.push_back(std::move(current));
    current = RspRecord{};
    open = false;
  };
  const auto start = [&](std::size_t line) {
    if (open) return;
    current.line = line;
    current.section = section;
    current.params = params;
    open = true;
  };

  std::size_t line_number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view raw = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++line_number;

    const std::string_view line = trim(raw);
    if (line.empty()) {
      close();
      continue;
    }
    // A comment does not end a record: the RFC files put them between a
    // record's fields ("Key = ...", "# \"Jefe\"", "Msg = ...").
    if (line.front() == '#') continue;

    if (line.front() == '[' && line.back() == ']') {
      close();
      const std::string_view inner = trim(line.substr(1, line.size() - 2));
      if (const std::size_t eq = inner.find('='); eq != std::string_view::npos) {
        std::string key(trim(inner.substr(0, eq)));
        std::string val(trim(inner.substr(eq + 1)));
        auto it = std::find_if(params.begin(), params.end(),
                               [&](const auto& p) { return equal_ignoring_case(p.first, key); });
        if (it != params.end())
          it->second = std::move(val);
        else
          params.emplace_back(std::move(key), std::move(val));
      } else {
        section = std::string(inner);
      }
      continue;
    }

    start(line_number);
    if (const std::size_t eq = line.find('='); eq != std::string_view::npos) {
      current.fields.push_back(RspField{.name = std::string(trim(line.substr(0, eq))),
                                        .value = std::string(trim(line.substr(eq + 1))),
                                        .line = line_number});
    } else {
      current.flags.emplace_back(line);
    }
  }
  close();
  return records;
}

std::vector<RspRecord> parse_rsp_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw std::runtime_error("error reading " + path.string());
  return parse_rsp(text.str());
}

std::optional<ByteVector> rsp_bytes(std::string_view value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    const std::string_view inner = value.substr(1, value.size() - 2);
    return ByteVector(inner.begin(), inner.end());
  }
  return detail::hex_decode(value);
}

std::string to_hex(std::span<const std::uint8_t> bytes) {
  return detail::hex_encode(bytes);
}

}  // namespace cryptoaccel::kat
