// Hugging Face's fast-tokenizer file (tokenizer.json): its model (WordPiece, byte-level BPE, Unigram), added
// tokens, normalizer and pre-tokenizer, read into tune's tokenizers. Parts tune does not implement are refused.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/tokenizer.h"
#include "data/vocabulary.h"

namespace tune {

struct AddedToken {
  int64_t id = 0;
  std::string content;
  bool special = false;
};

struct TokenizerJson {
  std::string path;
  std::string model_type;                                  // "WordPiece", "BPE" or "Unigram"
  Vocabulary vocab;                                        // token -> id (Unigram: piece -> its index)
  std::vector<AddedToken> added_tokens;
  nlohmann::json model, normalizer, pre_tokenizer;         // as in the file (null when absent)
};

// Throws std::invalid_argument naming the file when it cannot be read, is not JSON, or lacks a model.
TokenizerJson read_tokenizer_json(const std::string& path);

// Every token by id, the added ones included, and the ids of special added tokens.
std::vector<std::string> tokens_by_id(const TokenizerJson& file);

// The tokenizer the file describes: WordPiece with BertNormalizer and BertPreTokenizer, byte-level BPE
// (ByteLevel pre-tokenizer, no normalizer) or Unigram (run by sentencepiece; see data/sentencepiece_json.h).
// Throws naming the file and the part tune does not implement.
std::unique_ptr<Tokenizer> tokenizer_from_json(const TokenizerJson& file);

}  // namespace tune
