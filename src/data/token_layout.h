// Where a vocabulary keeps its special tokens: the ids the batchers need ([CLS]/<s>, [SEP]/</s>, [MASK], T5's
// first sentinel) and the range of ordinary word ids, read from a model folder's tokenizer files.
#pragma once
#include <optional>
#include <string>

#include "common/model_config.h"

namespace tune {

struct TokenLayout {
  int cls = -1, sep = -1, mask = -1;  // -1: the family has no such token (GPT-2's mask)
  int first_word = 0;                 // the first id after the leading special tokens
  int last_word = -1;                 // the last id before the trailing special tokens
  int sentinel_first = -1;            // T5's <extra_id_0>
  std::string source;                 // the file it was read from, or the family's usual layout
};

// From the folder's tokenizer files (tokenizer.json first, else the family's own); nullopt when it has none.
// Throws std::invalid_argument naming the file when a token the family needs is missing from it.
std::optional<TokenLayout> token_layout_from_files(const std::string& family, const std::string& dir);

// The family's usual layout (BERT's vocab.txt, RoBERTa's, GPT-2's, T5's) scaled to `vocab_size`: for a folder
// without tokenizer files, where the hashing fallback tokenizer only needs ids that are not special.
TokenLayout family_token_layout(const std::string& family, int vocab_size, int eos_token_id);

void apply_token_layout(const TokenLayout& layout, ModelConfig& config);

}  // namespace tune
