// `cryptoaccel speed` as a user runs it: --plot: an SVG or PNG and never a partial file, every size
// on the x axis. Runs are kept tiny (-seconds 0.01 to 0.5, two or three sizes).
#include <gtest/gtest.h>

#include "speed_cli_support.hpp"

namespace {

using namespace speed_cli;

std::vector<std::string> names_under(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    out.push_back(fs::relative(entry.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(SpeedCli, PlotWritesAnSvgOrPngAndNoPartialFile) {
  ScratchDir dir;
  const fs::path svg = dir.path / "speed.svg";
  const SpeedRun r =
      speed("--driver all aes-128-cbc sha256 -seconds 0.01 --sizes 16,64,256 --plot '" +
            svg.string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("plot written to " + svg.string()), std::string::npos) << r.err;
  const std::string text = read_file(svg);
  EXPECT_NE(text.find("<svg"), std::string::npos) << text.substr(0, 200);
  // One line per algorithm and driver, titled as in the table.
  EXPECT_NE(text.find("aes-128-cbc (soft)"), std::string::npos);
  EXPECT_NE(text.find("sha256 (soft)"), std::string::npos);
  EXPECT_NE(text.find(">16<"), std::string::npos) << "the sizes are the x ticks";
  // The table too: a row per algorithm and driver (soft, and mb where it
  // was built), soft's among them.
  EXPECT_GE(parse_openssl(r.out).rates.size(), 2u) << "the table is printed as well";
  EXPECT_NE(r.out.find("aes-128-cbc (soft)"), std::string::npos) << r.out;

  const fs::path png = dir.path / "speed.png";
  const SpeedRun p = speed("aes-128-cbc -seconds 0.01 --sizes 16,64 --plot '" + png.string() + "'");
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_EQ(read_file(png).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));

  EXPECT_EQ(names_under(dir.path), (std::vector<std::string>{"speed.png", "speed.svg"}))
      << "nothing named *.partial (or anything else) left behind";

  // A plot that cannot be written: the error says so, exit 1, and still no
  // partial file.
  const fs::path nowhere = dir.path / "no" / "such" / "dir" / "speed.svg";
  const SpeedRun bad =
      speed("aes-128-cbc -seconds 0.01 --sizes 16 --plot '" + nowhere.string() + "'");
  EXPECT_EQ(bad.status, 1) << bad.err;
  EXPECT_NE(bad.err.find("cryptoaccel: "), std::string::npos) << bad.err;
  EXPECT_EQ(names_under(dir.path), (std::vector<std::string>{"speed.png", "speed.svg"}));
}

// Every measured size is labelled on the x axis of the plot, the largest too.
TEST(SpeedCli, PlotLabelsEverySizeOnTheXAxis) {
  ScratchDir dir;
  const fs::path svg = dir.path / "speed.svg";
  const SpeedRun r =
      speed("aes-128-cbc -seconds 0.01 --sizes 16,64,256 --plot '" + svg.string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = read_file(svg);
  for (const char* tick : {">16<", ">64<", ">256<"})
    EXPECT_NE(text.find(tick), std::string::npos) << "no x tick " << tick;
}

}  // namespace
