// The bodies of speed_cli_support.hpp's functions: compiled once, not in
// each of the tests that include it (std::regex and nlohmann::json are
// costly to instantiate).
#include "speed_cli_support.hpp"
#include "build_paths.hpp"

#include <regex>

namespace speed_cli {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

SpeedRun speed(const std::string& args) {
  SpeedRun r;
  ScratchDir scratch;
  const fs::path err = scratch.path / "stderr";
  const std::string command =
      std::string(cryptoaccel::build_paths::kCli) + " speed " + args + " 2>'" + err.string() + "'";
  const auto run = cryptoaccel::test::run_shell(command);
  r.status = run.status;
  r.out = run.out;
  r.err = read_file(err);
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

bool near(double actual, double expected, double relative) {
  return std::abs(actual - expected) <= relative * std::abs(expected);
}

bool split_row(const std::string& line, std::size_t columns, std::size_t cell_words,
               std::string& label, std::vector<std::vector<std::string>>& cells) {
  std::vector<std::string> words = words_of(line);
  cells.assign(columns, {});
  for (std::size_t c = columns; c-- > 0;) {
    if (words.empty()) return false;
    if (words.back() == "-") {
      cells[c] = {"-"};
      words.pop_back();
      continue;
    }
    if (words.size() < cell_words) return false;
    cells[c].assign(words.end() - static_cast<std::ptrdiff_t>(cell_words), words.end());
    words.resize(words.size() - cell_words);
  }
  if (words.empty()) return false;
  label.clear();
  for (const std::string& w : words) label += (label.empty() ? "" : " ") + w;
  return true;
}

OpensslTables parse_openssl(const std::string& out) {
  OpensslTables t;
  const auto lines = lines_of(out);
  std::size_t i = 0;
  EXPECT_GE(lines.size(), 2u) << out;
  if (lines.size() < 2) return t;
  t.heading = lines[i++];
  EXPECT_EQ(t.heading.rfind("The 'numbers' are in 1000s of bytes per second processed", 0), 0u)
      << out;

  const std::regex header_cell(R"((\d+) bytes)");
  const auto parse_header = [&](const std::string& line) {
    std::vector<std::size_t> sizes;
    EXPECT_EQ(line.rfind("type ", 0), 0u) << line;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), header_cell);
         it != std::sregex_iterator(); ++it)
      sizes.push_back(std::stoul((*it)[1]));
    return sizes;
  };
  t.sizes = parse_header(lines[i++]);

  const std::regex rate_cell(R"((\d+\.\d\d)k)");
  for (; i < lines.size() && !lines[i].empty(); ++i) {
    TableRow row;
    std::vector<std::vector<std::string>> cells;
    EXPECT_TRUE(split_row(lines[i], t.sizes.size(), 1, row.label, cells)) << lines[i];
    for (const auto& cell : cells) {
      std::smatch m;
      if (cell.size() == 1 && cell[0] == "-") {
        row.cells.push_back(std::nullopt);
      } else if (cell.size() == 1 && std::regex_match(cell[0], m, rate_cell)) {
        row.cells.push_back(std::stod(m[1]));
      } else {
        ADD_FAILURE() << "not a rate cell in: " << lines[i];
        row.cells.push_back(std::nullopt);
      }
    }
    t.rates.push_back(std::move(row));
  }

  // A blank line, then the CPU table with the same header and rows.
  ++i;
  EXPECT_LT(i + 1, lines.size()) << "no CPU table:\n" << out;
  if (i + 1 >= lines.size()) return t;
  t.cpu_heading = lines[i++];
  EXPECT_EQ(t.cpu_heading.rfind("CPU seconds (user+system) and CPU % of elapsed time", 0), 0u)
      << out;
  EXPECT_EQ(parse_header(lines[i++]), t.sizes);
  const std::regex seconds_word(R"((\d+\.\d\d)s)"), percent_word(R"((\d+)%)");
  for (; i < lines.size() && !lines[i].empty(); ++i) {
    TableRow seconds, percent;
    std::vector<std::vector<std::string>> cells;
    EXPECT_TRUE(split_row(lines[i], t.sizes.size(), 2, seconds.label, cells)) << lines[i];
    percent.label = seconds.label;
    for (const auto& cell : cells) {
      std::smatch s, p;
      if (cell.size() == 2 && std::regex_match(cell[0], s, seconds_word) &&
          std::regex_match(cell[1], p, percent_word)) {
        seconds.cells.push_back(std::stod(s[1]));
        percent.cells.push_back(std::stod(p[1]));
      } else {
        EXPECT_EQ(cell, std::vector<std::string>{"-"}) << lines[i];
        seconds.cells.push_back(std::nullopt);
        percent.cells.push_back(std::nullopt);
      }
    }
    t.cpu_seconds.push_back(std::move(seconds));
    t.cpu_percent.push_back(std::move(percent));
  }
  for (; i < lines.size(); ++i)
    if (lines[i].rfind("Ratio to soft", 0) == 0) t.has_ratio_table = true;
  return t;
}

std::vector<DoingLine> parse_doing(const std::string& err) {
  static const std::regex doing(
      R"(^Doing (.+) for ([0-9.]+)s on (\d+) size blocks: (\d+) (.+)'s in (\d+\.\d\d)s( \(interrupted\))?$)");
  std::vector<DoingLine> out;
  for (const std::string& line : lines_of(err)) {
    if (line.rfind("Doing ", 0) != 0) continue;
    std::smatch m;
    EXPECT_TRUE(std::regex_match(line, m, doing)) << line;
    if (m.empty()) continue;
    EXPECT_EQ(m[1], m[5]) << line;
    out.push_back({m[1], std::stod(m[2]), std::stoul(m[3]), std::stoull(m[4]), std::stod(m[6]),
                   m[7].matched});
  }
  return out;
}

const TableRow* row_named(const std::vector<TableRow>& rows, const std::string& label) {
  for (const TableRow& r : rows)
    if (r.label == label) return &r;
  return nullptr;
}

std::string key_of(const Json& m) {
  return m.at("algorithm").get<std::string>() + "/" + m.at("driver").get<std::string>() + "/" +
         m.at("served_by").get<std::string>() + "/" +
         std::to_string(m.at("size").get<std::size_t>()) + "/" +
         std::to_string(m.at("workers").get<int>());
}

std::string check_result(const Json& m, double seconds, int workers) {
  for (const auto& [key, value] : m.items())
    EXPECT_TRUE(kResultFields.count(key) || kOptionalResultFields.count(key))
        << "unknown field " << key;
  for (const std::string& key : kResultFields) EXPECT_TRUE(m.contains(key)) << key << " in " << m;
  EXPECT_TRUE(m.at("algorithm").is_string());
  EXPECT_TRUE(m.at("size").is_number_unsigned()) << m;
  EXPECT_TRUE(m.at("operations").is_number_unsigned()) << m;
  EXPECT_EQ(m.at("workers").get<int>(), workers) << m;
  EXPECT_FALSE(m.at("interrupted").get<bool>()) << m;
  const double operations = m.at("operations").get<double>();
  const double size = m.at("size").get<double>();
  const double elapsed = m.at("elapsed_s").get<double>();
  const double user = m.at("cpu_user_s").get<double>(), system = m.at("cpu_system_s").get<double>();
  EXPECT_GT(operations, 0) << m;
  EXPECT_GE(elapsed, seconds - 1e-9) << m;  // at least what was asked
  EXPECT_LT(elapsed, seconds + 2) << m;
  EXPECT_GE(user, 0) << m;
  EXPECT_GE(system, 0) << m;
  EXPECT_GT(user + system, 0) << m;
  const double percent = m.at("cpu_percent").get<double>();
  EXPECT_NEAR(percent, 100 * (user + system) / elapsed, 1e-6) << m;
  EXPECT_GT(percent, 0) << m;
  // CPU time also counts the process's start and stop of the workers: on a
  // measurement of a few milliseconds (slowed further under ASan) that is a
  // few per cent, so 5 ms are allowed on top of 110 % per worker.
  EXPECT_LE(user + system, elapsed * 1.10 * workers + 0.005) << m;
  EXPECT_TRUE(near(m.at("bytes_per_second").get<double>(), operations * size / elapsed, 1e-9)) << m;
  return key_of(m);
}

}  // namespace speed_cli
