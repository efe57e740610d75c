// The HTML tested-models page in headless Chromium (Debian's chromium package, which scripts/setup --tests
// installs): it loads without console messages, every chart lays out with a size, and a screenshot shows them drawn.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "png_image.h"
#include "report/table_reporters.h"
#include "table_fixture.h"
#include "test_helpers.h"
#include "util/process.h"

using namespace tune;
using tune::testing::read_file;
using tune::testing::temp_dir;

namespace {

constexpr int kWindowWidth = 1400, kWindowHeight = 2400;  // the fixture's three rows and the notes fit

struct Box {
  int x, y, width, height;
};

// $CHROMIUM, else the first of Debian's and others' names on PATH; empty when there is none.
std::string find_chromium() {
  if (const char* chosen = std::getenv("CHROMIUM")) return chosen;
  std::stringstream path(std::getenv("PATH") ? std::getenv("PATH") : "");
  std::vector<std::string> dirs;
  for (std::string dir; std::getline(path, dir, ':');) dirs.push_back(dir);
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"})
    for (const auto& dir : dirs)
      if (::access((dir + "/" + name).c_str(), X_OK) == 0) return dir + "/" + name;
  return "";
}

class ReportPage : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = find_chromium();
    ASSERT_FALSE(chromium_.empty()) << "headless Chromium not found: install Debian's chromium package (scripts/setup "
                                       "--tests, which scripts/test runs, does) or set CHROMIUM to the browser's path";
    dir_ = temp_dir("page");
    tune::testing::write_table_fixture((dir_ / "t.db").string());
    const Database db((dir_ / "t.db").string());
    std::ofstream html(dir_ / "page.html");
    make_table_html_reporter()->write(html, gather_tested_models(db, "fixture.db"));
  }

  // Runs the browser on the page with one action (--dump-dom, --screenshot=...); returns its output.
  std::string run_browser(const std::string& action, const std::string& log_name) {
    const std::string log = (dir_ / log_name).string();
    const ChildOutcome outcome = run_child(
        {chromium_, "--headless", "--disable-gpu", "--no-sandbox", "--enable-logging=stderr", "--v=0",
         "--hide-scrollbars", "--force-device-scale-factor=1",
         "--window-size=" + std::to_string(kWindowWidth) + "," + std::to_string(kWindowHeight),
         "--user-data-dir=" + (dir_ / "profile").string(), action, "file://" + (dir_ / "page.html").string()},
        log, 120);
    const std::string output = read_file(log);
    EXPECT_TRUE(!outcome.timed_out && !outcome.signaled && outcome.exit_code == 0)
        << chromium_ << " " << action << ": " << describe_outcome(outcome) << "\n" << output;
    return output;
  }

  std::string chromium_;
  std::filesystem::path dir_;
};

// Chromium logs every console message (log, warning, error, uncaught exception, CSP violation) as CONSOLE.
std::vector<std::string> console_lines(const std::string& output) {
  std::vector<std::string> lines;
  std::stringstream in(output);
  for (std::string line; std::getline(in, line);)
    if (line.find(":CONSOLE") != std::string::npos) lines.push_back(line);
  return lines;
}

std::vector<Box> chart_boxes(const std::string& dom) {
  std::vector<Box> boxes;
  const std::regex box(R"re(data-box="(-?\d+),(-?\d+),(\d+),(\d+)")re");
  for (std::sregex_iterator it(dom.begin(), dom.end(), box), end; it != end; ++it)
    boxes.push_back({std::stoi((*it)[1]), std::stoi((*it)[2]), std::stoi((*it)[3]), std::stoi((*it)[4])});
  return boxes;
}

// Pixels of a series, marker or legend colour: clearly saturated, unlike text, axes, grid and background.
int colored_pixels(const tune::testing::RgbImage& image, const Box& box) {
  int count = 0;
  for (int y = std::max(0, box.y); y < std::min(image.height, box.y + box.height); ++y)
    for (int x = std::max(0, box.x); x < std::min(image.width, box.x + box.width); ++x) {
      const uint8_t* p = image.at(x, y);
      count += std::max({p[0], p[1], p[2]}) - std::min({p[0], p[1], p[2]}) > 80;
    }
  return count;
}

}  // namespace

TEST_F(ReportPage, LoadsWithoutConsoleMessagesAndLaysOutEveryChart) {
  const std::string output = run_browser("--dump-dom", "dom.log");
  EXPECT_TRUE(console_lines(output).empty()) << "console messages:\n" << output;
  const std::regex drawn(R"re(data-charts-drawn="(\d+)")re");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(output, match, drawn)) << "the page's script did not run:\n" << output;
  EXPECT_EQ(std::stoi(match[1]), 9) << "three rows of three charts";
  const auto boxes = chart_boxes(output);
  ASSERT_EQ(boxes.size(), 9u) << output;
  for (const auto& b : boxes) {
    EXPECT_GT(b.width, 100);
    EXPECT_GT(b.height, 100);
  }
}

TEST_F(ReportPage, ScreenshotShowsEveryChartDrawn) {
  const auto boxes = chart_boxes(run_browser("--dump-dom", "dom.log"));
  ASSERT_EQ(boxes.size(), 9u);
  const std::string png = (dir_ / "page.png").string();
  run_browser("--screenshot=" + png, "screenshot.log");
  const auto image = tune::testing::read_png(png);
  ASSERT_EQ(image.width, kWindowWidth);
  for (const auto& b : boxes) {
    ASSERT_LE(b.y + b.height, image.height) << "chart below the window; enlarge kWindowHeight";
    const int colored = colored_pixels(image, b);
    EXPECT_GT(colored, 200) << "chart at " << b.x << "," << b.y << " looks blank (screenshot " << png << ")";
    EXPECT_LT(colored, b.width * b.height / 3) << "chart at " << b.x << "," << b.y << " is a filled blob";
  }
  // Control: the heading strip holds only dark text, so the count can tell drawn lines from none.
  EXPECT_LT(colored_pixels(image, {0, 0, kWindowWidth, 40}), 50);
}
