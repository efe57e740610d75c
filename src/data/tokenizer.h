// Text -> token ids. A model's own tokenizer files (--tokenizer DIR) are used when given; otherwise a
// documented fallback maps words to ids by a stable hash inside the model's word-id range.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/model_config.h"

namespace tune {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  // Ids for the text, without special tokens (batchers add [CLS]/[SEP], </s>, ... themselves).
  virtual std::vector<int64_t> encode(const std::string& text) const = 0;
  // For the output: which tokenizer and files, or that the fallback is in use.
  virtual std::string describe() const = 0;
};

// The fallback: lowercased words and punctuation (split_words), each mapped by a stable hash to an id
// in [first_word_token_id, word_id_end()). Same word, same id: a real (Zipfian, contextual) signal.
class HashWordTokenizer : public Tokenizer {
 public:
  explicit HashWordTokenizer(const ModelConfig& model);
  std::vector<int64_t> encode(const std::string& text) const override;
  std::string describe() const override;

 private:
  int64_t first_id_, end_id_;
};

// tokenizer_dir empty: the fallback. Otherwise the family's tokenizer from that folder.
// Throws std::invalid_argument naming the folder and the files expected there.
std::unique_ptr<Tokenizer> make_tokenizer(const ModelConfig& model, const std::string& tokenizer_dir);

}  // namespace tune
