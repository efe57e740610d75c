// Real English text for training trials, turned into token ids inside a model's vocabulary range.
// Until the model's own tokenizer is wired in, words map to ids by a stable hash (the hashing trick).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tune {

struct Corpus {
  std::string source;  // what was read, for the output ("/usr/share/common-licenses" ...)
  std::string text;    // the files' text, concatenated in name order
};

// Reads a text file, or a directory of text files (sorted by name). Throws std::invalid_argument
// naming the path when it is missing or holds no text.
Corpus load_corpus(const std::string& path);

// The files load_corpus reads, in its order: the path itself, or the regular files of a folder by name.
// Throws std::invalid_argument naming the path when it is missing.
std::vector<std::string> corpus_files(const std::string& path);

// The default corpus's path: $TUNE_CORPUS if set; else corpus/ in the project (scripts/setup writes the
// King James Bible there from Debian's bible-kjv); else the licence texts every Debian system ships in
// /usr/share/common-licenses. All real English prose, none of it from ../shared.
std::string default_corpus_path();

// Lowercased words and single punctuation marks, in order.
std::vector<std::string> split_words(const std::string& text);

// Maps each word to an id in [first_id, vocab_size) by a stable hash: same word, same id.
std::vector<int64_t> hash_token_ids(const std::vector<std::string>& words, int64_t first_id, int64_t vocab_size);

}  // namespace tune
