// "Did you mean ...?" for a mistyped key or name: the known name nearest by edit distance.
// Header-only, used by the YAML readers and flag checks that list what they expected.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

namespace tune {

// Levenshtein distance (insert, delete, substitute: 1 each).
inline size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The candidate nearest to `word`, or "" when even the nearest differs in more than a third of its letters.
inline std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = word.size() / 3 + 1;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_distance) best = c, best_distance = d;
  }
  return best;
}

}  // namespace tune
