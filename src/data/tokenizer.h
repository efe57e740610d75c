// Text -> token ids. A model's own tokenizer files (--tokenizer DIR) are used when given; otherwise a
// documented fallback maps words to ids by a stable hash inside the model's word-id range.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/model_config.h"

namespace tune {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  // Ids for the text, without special tokens (batchers add [CLS]/[SEP], </s>, ... themselves).
  virtual std::vector<int64_t> encode(const std::string& text) const = 0;
  // For the output: which tokenizer and files, or that the fallback is in use.
  virtual std::string describe() const = 0;
  // One past the largest id encode() can return (checked against the model's vocab_size).
  virtual int64_t id_end() const = 0;
};

// The fallback: lowercased words and punctuation (split_words), each mapped by a stable hash to an id
// in [first_word_token_id, word_id_end()). Same word, same id: a real (Zipfian, contextual) signal.
class HashWordTokenizer : public Tokenizer {
 public:
  explicit HashWordTokenizer(const ModelConfig& model);
  std::vector<int64_t> encode(const std::string& text) const override;
  std::string describe() const override;
  int64_t id_end() const override { return end_id_; }

 private:
  int64_t first_id_, end_id_;
};

// tokenizer_dir empty: the fallback. Otherwise the family's tokenizer, chosen by the files in that folder:
// tokenizer.json (HF's fast tokenizer: WordPiece, byte-level BPE or Unigram), else vocab.txt (bert, distilbert:
// WordPiece), vocab.json + merges.txt (gpt2, roberta: byte-level BPE), spiece.model (t5) or
// sentencepiece.bpe.model (roberta, i.e. XLM-R: fairseq ids): SentencePiece.
// Throws std::invalid_argument naming the folder and the files expected there, or when the tokenizer's
// ids do not fit the model's vocab_size.
std::unique_ptr<Tokenizer> make_tokenizer(const ModelConfig& model, const std::string& tokenizer_dir);

// Whether `dir` holds files make_tokenizer reads for `family`.
bool has_tokenizer_files(const std::string& family, const std::string& dir);

}  // namespace tune
