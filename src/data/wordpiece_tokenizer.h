// BERT / DistilBERT WordPiece tokenizer from a vocab.txt, matching Hugging Face tokenizers' BertNormalizer,
// BertPreTokenizer and WordPiece model id for id. Unicode properties and NFD come from utf8proc.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "data/special_tokens.h"
#include "data/tokenizer.h"
#include "data/vocabulary.h"

namespace tune {

struct WordPieceOptions {
  bool lowercase = false;      // uncased vocabularies
  bool strip_accents = false;  // HF default: follows lowercase
  bool split_cjk = true;       // every CJK ideograph its own word
  std::string unk_token = "[UNK]";
  int max_chars_per_word = 100;  // longer words become unk_token
  std::string continuing_prefix = "##";  // marks a piece inside a word
  std::vector<std::string> special_tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};  // matched verbatim
};

class WordPieceTokenizer : public Tokenizer {
 public:
  // Throws std::invalid_argument naming the file when it cannot be read, is empty or lacks unk_token.
  WordPieceTokenizer(const std::string& vocab_path, const WordPieceOptions& options);
  // From a vocabulary already read (tokenizer.json's model.vocab); `source` names it in messages.
  WordPieceTokenizer(Vocabulary vocab, const std::string& source, const WordPieceOptions& options);
  std::vector<int64_t> encode(const std::string& text) const override;
  std::string describe() const override;
  int64_t id_end() const override { return id_end_; }

 private:
  void append_word_ids(const std::string& word, std::vector<int64_t>& ids) const;

  std::string vocab_path_;
  WordPieceOptions options_;
  Vocabulary vocab_;
  SpecialTokens specials_;
  int64_t unk_id_ = 0;
  int64_t id_end_ = 0;
};

}  // namespace tune
