// Reads vocab.txt and token -> id JSON objects into one Vocabulary type, so WordPiece, byte-level BPE,
// tokenizer.json and the token layout all read them the same way.
#include "data/vocabulary.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace tune {

Vocabulary read_vocab_txt(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("vocabulary '" + path + "' cannot be read");
  Vocabulary vocab;
  int64_t next_id = 0;
  std::string line;
  while (std::getline(in, line)) {
    line.erase(line.find_last_not_of(" \t\r\n") + 1);  // HF trims line ends
    vocab[line] = next_id++;                            // a repeated line keeps its last id, as in HF
  }
  if (next_id == 0) throw std::invalid_argument("vocabulary '" + path + "' is empty");
  return vocab;
}

Vocabulary vocab_from_json(const nlohmann::json& object, const std::string& where) {
  if (!object.is_object() || object.empty())
    throw std::invalid_argument(where + " is not a non-empty JSON object of token -> id");
  Vocabulary vocab;
  for (const auto& [token, id] : object.items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0)
      throw std::invalid_argument(where + ": token '" + token + "' has id " + id.dump() +
                                  ", not a non-negative integer");
    vocab[token] = id.get<int64_t>();
  }
  return vocab;
}

Vocabulary read_vocab_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("vocabulary '" + path + "' cannot be read");
  nlohmann::json json;
  try {
    in >> json;
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("vocabulary '" + path + "' is not valid JSON: " + e.what());
  }
  return vocab_from_json(json, "vocabulary '" + path + "'");
}

std::vector<std::string> tokens_by_id(const Vocabulary& vocab, const std::string& where) {
  int64_t end = 0;
  for (const auto& [token, id] : vocab) {
    if (id < 0)  // an index below the table: the fuzzer's added token had id -5
      throw std::invalid_argument(where + ": token '" + token + "' has id " + std::to_string(id) +
                                  " (expected ids 0 and up)");
    end = std::max(end, id + 1);
  }
  const int64_t most = 2 * static_cast<int64_t>(vocab.size()) + 1024;
  if (end > most)
    throw std::invalid_argument(where + ": token ids run to " + std::to_string(end - 1) + " for " +
                                std::to_string(vocab.size()) + " tokens (expected ids 0.." +
                                std::to_string(vocab.size() - 1) + " with few gaps, at most " +
                                std::to_string(most - 1) + ")");
  std::vector<std::string> tokens(static_cast<size_t>(end));
  for (const auto& [token, id] : vocab) tokens[static_cast<size_t>(id)] = token;
  return tokens;
}

}  // namespace tune
