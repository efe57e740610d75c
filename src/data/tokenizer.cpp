// The tokenizer factory and the hashing fallback. Real tokenizers (WordPiece, byte-level BPE,
// SentencePiece) plug in here by family.
#include "data/tokenizer.h"

#include <stdexcept>

#include "data/text_corpus.h"

namespace tune {

HashWordTokenizer::HashWordTokenizer(const ModelConfig& model)
    : first_id_(model.first_word_token_id), end_id_(model.word_id_end()) {}

std::vector<int64_t> HashWordTokenizer::encode(const std::string& text) const {
  return hash_token_ids(split_words(text), first_id_, end_id_);
}

std::string HashWordTokenizer::describe() const {
  return "fallback tokenizer: hashed words into ids " + std::to_string(first_id_) + ".." + std::to_string(end_id_ - 1) +
         " (give --tokenizer DIR for the model's own)";
}

std::unique_ptr<Tokenizer> make_tokenizer(const ModelConfig& model, const std::string& tokenizer_dir) {
  if (tokenizer_dir.empty()) return std::make_unique<HashWordTokenizer>(model);
  throw std::invalid_argument("tokenizer folder '" + tokenizer_dir + "': no tokenizer is implemented for family '" +
                              model.family + "' yet");
}

}  // namespace tune
