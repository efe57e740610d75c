// The floors (floors.txt, lowest first): every #include "..." of src/, tuners/ and tools/ names a file of its own
// folder or of a folder on a lower floor. An upward include, an include that names no file of the tree, or a
// source folder that is on no floor fails, with the file, the line and the two floors.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "test_helpers.h"

namespace fs = std::filesystem;

namespace tune {
namespace {

const fs::path kRoot = TUNE_SOURCE_DIR;

// The floors' folders in order, read from floors.txt (a folder is the line's first word; '#' starts a comment).
std::vector<std::string> read_floors() {
  std::vector<std::string> floors;
  std::istringstream lines(testing::read_file(kRoot / "floors.txt"));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line.substr(0, line.find('#')));
    std::string folder;
    if (words >> folder) floors.push_back(folder);
  }
  return floors;
}

struct IncludeEdge {
  std::string file;      // relative to the root
  int line = 0;
  std::string included;  // as written
};

bool is_source(const fs::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".h" || ext == ".cpp";
}

std::vector<IncludeEdge> quoted_includes(const std::vector<std::string>& top_folders) {
  static const std::regex include(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::vector<IncludeEdge> edges;
  for (const auto& top : top_folders)
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / top)) {
      if (!entry.is_regular_file() || !is_source(entry.path())) continue;
      const std::string file = fs::relative(entry.path(), kRoot).string();
      std::istringstream lines(testing::read_file(entry.path()));
      int number = 0;
      std::smatch m;
      for (std::string line; std::getline(lines, line);)
        if (++number, std::regex_search(line, m, include)) edges.push_back({file, number, m[1]});
    }
  return edges;
}

// The file an include names: under src/ (the include root of tune's own code), else under the repository root.
std::string resolve(const std::string& included) {
  for (const fs::path base : {kRoot / "src", kRoot})
    if (fs::is_regular_file(base / included)) return fs::relative(base / included, kRoot).string();
  return "";
}

// What breaks the floors, one message each: a file on no floor, an include that names no file, an upward include.
std::vector<std::string> violations(const std::vector<std::string>& floors, const std::vector<IncludeEdge>& edges,
                                    const std::function<std::string(const std::string&)>& resolve_include) {
  std::map<std::string, int> level;
  for (size_t i = 0; i < floors.size(); ++i) level[floors[i]] = static_cast<int>(i);
  const auto floor_of = [&](const std::string& file) {
    const auto found = level.find(fs::path(file).parent_path().string());
    return found == level.end() ? -1 : found->second;
  };
  std::vector<std::string> found;
  for (const auto& e : edges) {
    const std::string where = e.file + ":" + std::to_string(e.line) + ": ";
    const std::string target = resolve_include(e.included);
    const int from = floor_of(e.file), to = target.empty() ? -1 : floor_of(target);
    if (from < 0) found.push_back(where + "its folder is on no floor of floors.txt");
    else if (target.empty()) found.push_back(where + "\"" + e.included + "\" names no file of the tree");
    else if (to < 0) found.push_back(where + target + "'s folder is on no floor of floors.txt");
    else if (to > from)
      found.push_back(where + "includes \"" + e.included + "\": floor " + floors[to] + " is above " + floors[from]);
  }
  return found;
}

TEST(Layering, EveryIncludeGoesToItsOwnFloorOrALowerOne) {
  const std::vector<std::string> floors = read_floors();
  ASSERT_GE(floors.size(), 10u) << "floors.txt lists too few floors";
  const std::vector<IncludeEdge> edges = quoted_includes({"src", "tuners", "tools"});
  ASSERT_GT(edges.size(), 500u);
  for (const auto& v : violations(floors, edges, resolve)) ADD_FAILURE() << v;
}

// The check sees an upward include, a file on no floor and an include of nothing.
TEST(Layering, TheCheckRefusesAnUpwardIncludeAndAFileOnNoFloor) {
  const std::vector<std::string> floors{"src/low", "src/high"};
  const auto resolve_any = [](const std::string& inc) { return inc == "missing.h" ? "" : "src/" + inc; };
  EXPECT_TRUE(violations(floors, {{"src/high/a.cpp", 3, "low/b.h"}, {"src/low/b.cpp", 1, "low/b.h"}}, resolve_any)
                  .empty());
  const auto up = violations(floors, {{"src/low/b.cpp", 7, "high/a.h"}}, resolve_any);
  ASSERT_EQ(up.size(), 1u);
  EXPECT_EQ(up[0], "src/low/b.cpp:7: includes \"high/a.h\": floor src/high is above src/low");
  EXPECT_EQ(violations(floors, {{"src/elsewhere/c.cpp", 1, "low/b.h"}}, resolve_any).size(), 1u);
  EXPECT_EQ(violations(floors, {{"src/low/c.cpp", 1, "missing.h"}}, resolve_any).size(), 1u);
}

// The order itself: the shared vocabulary below its users, composites above the strategies they compose.
TEST(Layering, TheSharedVocabularyIsBelowItsUsers) {
  const std::vector<std::string> floors = read_floors();
  const auto at = [&](const std::string& folder) {
    return std::find(floors.begin(), floors.end(), folder) - floors.begin();
  };
  for (const char* user : {"src/models", "src/data", "src/store", "tuners", "src/engine"})
    EXPECT_LT(at("src/common"), at(user)) << user;
  EXPECT_LT(at("tuners"), at("tuners/composite"));
  EXPECT_LT(at("src/engine"), at("src/report"));
}

}  // namespace
}  // namespace tune
