// GPT-2 / RoBERTa byte-level BPE tokenizer from vocab.json and merges.txt, matching Hugging Face tokenizers'
// ByteLevel pre-tokenizer (GPT-2's regex, run by PCRE2 with Unicode properties) and BPE model id for id.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "data/special_tokens.h"
#include "data/tokenizer.h"
#include "data/vocabulary.h"

namespace tune {

using BpeMerge = std::pair<std::string, std::string>;  // left and right token, best merge first in a list

// merges.txt: an optional "#version" line, then "left right" per line. Throws naming the file and line.
std::vector<BpeMerge> read_merges_txt(const std::string& path);

class BpeTokenizer : public Tokenizer {
 public:
  // Throws std::invalid_argument naming the file when either is unreadable or malformed, or when a merge
  // or a byte has no vocabulary entry.
  // special_tokens: matched verbatim in a text and given their own id (GPT-2: <|endoftext|>).
  BpeTokenizer(const std::string& vocab_json_path, const std::string& merges_path,
               const std::vector<std::string>& special_tokens);
  // From a vocabulary and merges already read (tokenizer.json's model); `source` names them in messages.
  BpeTokenizer(const Vocabulary& vocab, const std::vector<BpeMerge>& merges, const std::string& source,
               const std::vector<std::string>& special_tokens);
  ~BpeTokenizer() override;
  std::vector<int64_t> encode(const std::string& text) const override;
  std::string describe() const override;
  int64_t id_end() const override { return id_end_; }

 private:
  struct Merge {
    int rank;
    int64_t merged_id;
  };
  void index_merges(const std::vector<BpeMerge>& merges, const Vocabulary& vocab);
  std::vector<int64_t> bpe(const std::string& word) const;
  void append_word_ids(const std::string& word, std::vector<int64_t>& ids) const;
  void append_text_ids(const std::string& text, std::vector<int64_t>& ids) const;

  std::string source_;
  std::array<int64_t, 256> byte_ids_{};                    // id of each byte's bytes_to_unicode character
  std::unordered_map<uint64_t, Merge> merges_;             // (left id << 32 | right id) -> rank, result
  int64_t id_end_ = 0;
  SpecialTokens specials_;
  struct Pattern;
  std::unique_ptr<Pattern> pattern_;                       // the compiled pre-tokenisation regex
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<int64_t>> cache_;  // word -> ids
};

}  // namespace tune
