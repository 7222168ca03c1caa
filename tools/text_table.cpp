#include "text_table.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace cryptoaccel::tools {

void TextTable::print(std::FILE* out, const std::vector<std::size_t>& right) const {
  std::vector<std::size_t> width;
  for (const auto& row : rows_) {
    width.resize(std::max(width.size(), row.size()));
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows_) {
    std::string line = indent_;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const bool last = c + 1 == row.size();
      const bool align_right = std::find(right.begin(), right.end(), c) != right.end();
      if (align_right)
        line += fmt::format("{:>{}}", row[c], width[c]);
      else
        line += last ? row[c] : fmt::format("{:<{}}", row[c], width[c]);
      if (!last) line += "  ";
    }
    fmt::print(out, "{}\n", line);
  }
}

}  // namespace cryptoaccel::tools
