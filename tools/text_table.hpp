// Columns aligned for a terminal: every row padded to the widest cell.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace cryptoaccel::tools {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header, std::string indent = "")
      : indent_(std::move(indent)) {
    rows_.push_back(std::move(header));
  }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // Columns listed in `right` are right-aligned (numbers).
  void print(std::FILE* out, const std::vector<std::size_t>& right = {}) const;

 private:
  std::string indent_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace cryptoaccel::tools
