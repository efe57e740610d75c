// Reads plain-text corpora and maps words to ids by a stable hash inside the vocabulary range.
// The hashing trick keeps a real learning signal (Zipfian, context-dependent ids) without a tokenizer.
#include "data/text_corpus.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "util/hash.h"
#include "util/paths.h"

namespace fs = std::filesystem;

namespace tune {
namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("corpus file '" + path.string() + "' cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::vector<std::string> corpus_files(const std::string& path) {
  if (!fs::exists(path)) throw std::invalid_argument("corpus '" + path + "' does not exist (expected a text file or a folder of them)");
  if (!fs::is_directory(path)) return {path};
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(path))
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (unsigned char ch : text) {
    if (std::isalnum(ch)) {
      word += static_cast<char>(std::tolower(ch));
      continue;
    }
    if (!word.empty()) words.push_back(std::move(word)), word.clear();
    if (std::ispunct(ch)) words.emplace_back(1, static_cast<char>(ch));
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

Corpus load_corpus(const std::string& path) {
  Corpus corpus{path, {}};
  for (const auto& file : corpus_files(path)) corpus.text += read_file(file) + "\n";
  // split_words would yield nothing exactly when no character is alphanumeric or punctuation.
  const bool has_words = std::any_of(corpus.text.begin(), corpus.text.end(), [](unsigned char ch) {
    return std::isalnum(ch) || std::ispunct(ch);
  });
  if (!has_words) throw std::invalid_argument("corpus '" + path + "' holds no words");
  return corpus;
}

std::string default_corpus_path() {
  if (const char* path = std::getenv("TUNE_CORPUS"); path && *path) return path;
  const fs::path project = fs::path(tune_home()) / "corpus";
  if (fs::is_directory(project) && !fs::is_empty(project)) return project.string();
  return "/usr/share/common-licenses";
}

std::vector<int64_t> hash_token_ids(const std::vector<std::string>& words, int64_t first_id, int64_t vocab_size) {
  const uint64_t range = static_cast<uint64_t>(vocab_size - first_id);
  std::vector<int64_t> ids;
  ids.reserve(words.size());
  for (const auto& w : words) ids.push_back(first_id + static_cast<int64_t>(stable_hash_value(w) % range));
  return ids;
}

}  // namespace tune
