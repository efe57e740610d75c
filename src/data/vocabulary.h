// Vocabulary files the tokenizers and the token layout share: vocab.txt (one token per line, id = line number)
// and vocab.json or tokenizer.json's model.vocab (token -> id), read with errors that name the file.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace tune {

using Vocabulary = std::unordered_map<std::string, int64_t>;

// Throws std::invalid_argument naming the file when it cannot be read or is empty. A repeated line keeps its
// last id, and line ends are trimmed, as Hugging Face reads vocab.txt.
Vocabulary read_vocab_txt(const std::string& path);
// A JSON file holding one object of token -> non-negative integer id.
Vocabulary read_vocab_json(const std::string& path);
// The same from a parsed object; `where` names it in messages (e.g. "tokenizer.json's model.vocab").
Vocabulary vocab_from_json(const nlohmann::json& object, const std::string& where);

// Tokens indexed by id; ids no token has are empty strings. Real vocabularies number their tokens 0..n-1 with
// few gaps, so ids reaching past 2n + 1024 throw std::invalid_argument naming `where`, before a listing
// that size is allocated (one id of 4e11 would otherwise ask for terabytes).
std::vector<std::string> tokens_by_id(const Vocabulary& vocab, const std::string& where);

}  // namespace tune
