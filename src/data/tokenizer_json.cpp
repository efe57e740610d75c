// Reads tokenizer.json and builds the WordPiece or byte-level BPE tokenizer it declares, refusing any
// normalizer, pre-tokenizer or model option that would make its ids differ from Hugging Face's.
#include "data/tokenizer_json.h"

#include "data/sentencepiece_tokenizer.h"

#include <fstream>
#include <stdexcept>

#include "data/bpe_tokenizer.h"
#include "data/wordpiece_tokenizer.h"

namespace tune {
namespace {

nlohmann::json parse_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("tokenizer file '" + path + "' cannot be read");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("tokenizer file '" + path + "' is not valid JSON: " + e.what());
  }
}

std::string type_of(const nlohmann::json& part) {
  return part.is_object() && part.contains("type") && part["type"].is_string() ? part["type"].get<std::string>() : "";
}

[[noreturn]] void unsupported(const TokenizerJson& f, const std::string& what, const std::string& expected) {
  throw std::invalid_argument("tokenizer file '" + f.path + "': " + what + " is not one tune implements (expected " +
                              expected + ")");
}

std::vector<AddedToken> read_added_tokens(const nlohmann::json& root, const std::string& path) {
  std::vector<AddedToken> added;
  if (!root.contains("added_tokens") || root["added_tokens"].is_null()) return added;
  for (const auto& t : root["added_tokens"]) {
    if (!t.is_object() || !t.contains("id") || !t["id"].is_number_integer() || !t.contains("content") ||
        !t["content"].is_string())
      throw std::invalid_argument("tokenizer file '" + path + "': an added token is not {\"id\": N, \"content\": S}: " +
                                  t.dump());
    if (t["id"].get<int64_t>() < 0)
      throw std::invalid_argument("tokenizer file '" + path + "': added token " + t["content"].dump() + " has id " +
                                  t["id"].dump() + " (expected ids 0 and up)");
    added.push_back({t["id"].get<int64_t>(), t["content"].get<std::string>(), t.value("special", false)});
  }
  return added;
}

// Unigram's vocab is a list of [piece, score]; a piece's id is its index.
Vocabulary unigram_vocab(const nlohmann::json& list, const std::string& path) {
  if (!list.is_array() || list.empty())
    throw std::invalid_argument("tokenizer file '" + path + "': model.vocab of a Unigram model is not a list");
  Vocabulary vocab;
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_array() || list[i].size() != 2 || !list[i][0].is_string() || !list[i][1].is_number())
      throw std::invalid_argument("tokenizer file '" + path + "': model.vocab[" + std::to_string(i) +
                                  "] is not [piece, score]");
    vocab[list[i][0].get<std::string>()] = static_cast<int64_t>(i);
  }
  return vocab;
}

std::vector<std::string> added_contents(const TokenizerJson& f) {
  std::vector<std::string> contents;
  for (const auto& t : f.added_tokens) contents.push_back(t.content);
  return contents;
}

// BertNormalizer's options; clean_text must be on (tune's WordPiece always cleans, as BERT's files say).
WordPieceOptions wordpiece_options(const TokenizerJson& f) {
  if (type_of(f.normalizer) != "BertNormalizer") unsupported(f, "normalizer '" + type_of(f.normalizer) + "'", "BertNormalizer");
  if (type_of(f.pre_tokenizer) != "BertPreTokenizer")
    unsupported(f, "pre_tokenizer '" + type_of(f.pre_tokenizer) + "'", "BertPreTokenizer");
  const auto& n = f.normalizer;
  if (!n.value("clean_text", true)) unsupported(f, "normalizer clean_text false", "true");
  WordPieceOptions o;
  o.lowercase = n.value("lowercase", true);
  o.strip_accents = n.contains("strip_accents") && !n["strip_accents"].is_null() ? n["strip_accents"].get<bool>()
                                                                                 : o.lowercase;
  o.split_cjk = n.value("handle_chinese_chars", true);
  o.unk_token = f.model.value("unk_token", std::string("[UNK]"));
  o.continuing_prefix = f.model.value("continuing_subword_prefix", std::string("##"));
  o.max_chars_per_word = f.model.value("max_input_chars_per_word", 100);
  o.special_tokens = added_contents(f);
  return o;
}

// merges are "left right" strings (tokenizers < 0.20) or [left, right] pairs (later versions).
std::vector<BpeMerge> bpe_merges(const TokenizerJson& f) {
  std::vector<BpeMerge> merges;
  for (const auto& m : f.model.value("merges", nlohmann::json::array())) {
    if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      merges.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
      continue;
    }
    const std::string line = m.is_string() ? m.get<std::string>() : "";
    const auto space = line.find(' ');
    if (space == std::string::npos)
      throw std::invalid_argument("tokenizer file '" + f.path + "': merge " + m.dump() + " is not 'left right'");
    merges.emplace_back(line.substr(0, space), line.substr(space + 1));
  }
  return merges;
}

void check_byte_level(const TokenizerJson& f) {
  if (!f.normalizer.is_null()) unsupported(f, "normalizer '" + type_of(f.normalizer) + "' with BPE", "none");
  if (type_of(f.pre_tokenizer) != "ByteLevel")
    unsupported(f, "pre_tokenizer '" + type_of(f.pre_tokenizer) + "' with BPE", "ByteLevel");
  if (f.pre_tokenizer.value("add_prefix_space", false)) unsupported(f, "ByteLevel add_prefix_space true", "false");
  if (!f.pre_tokenizer.value("use_regex", true)) unsupported(f, "ByteLevel use_regex false", "true");
  if (!f.model.value("continuing_subword_prefix", nlohmann::json()).is_null() &&
      !f.model["continuing_subword_prefix"].get<std::string>().empty())
    unsupported(f, "BPE continuing_subword_prefix", "none");
  if (!f.model.value("dropout", nlohmann::json()).is_null()) unsupported(f, "BPE dropout", "null");
}

// Runs f, turning a field of the wrong JSON type (a list where HF writes a string, found by fuzzing) into a user
// error naming the file: the readers below take HF's layout on trust and nlohmann checks each access.
template <typename F>
auto naming_json_errors(const std::string& path, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("tokenizer file '" + path + "' does not have HF's tokenizer.json layout: " + e.what());
  }
}

TokenizerJson read_tokenizer_json_as_is(const std::string& path) {
  const nlohmann::json root = parse_file(path);
  if (!root.is_object() || !root.contains("model") || !root["model"].is_object())
    throw std::invalid_argument("tokenizer file '" + path + "' has no \"model\" object (expected HF's tokenizer.json)");
  TokenizerJson f;
  f.path = path;
  f.model = root["model"];
  f.model_type = type_of(f.model);
  f.normalizer = root.value("normalizer", nlohmann::json());
  f.pre_tokenizer = root.value("pre_tokenizer", nlohmann::json());
  f.added_tokens = read_added_tokens(root, path);
  if (f.model_type == "Unigram") f.vocab = unigram_vocab(f.model.value("vocab", nlohmann::json()), path);
  else if (f.model_type == "WordPiece" || f.model_type == "BPE")
    f.vocab = vocab_from_json(f.model.value("vocab", nlohmann::json()), "tokenizer file '" + path + "': model.vocab");
  else unsupported(f, "model '" + f.model_type + "'", "WordPiece, BPE or Unigram");
  return f;
}

std::unique_ptr<Tokenizer> tokenizer_from_json_as_is(const TokenizerJson& file) {
  Vocabulary vocab = file.vocab;
  for (const auto& t : file.added_tokens) vocab[t.content] = t.id;  // added tokens are matched verbatim
  if (file.model_type == "WordPiece") return std::make_unique<WordPieceTokenizer>(vocab, file.path, wordpiece_options(file));
  if (file.model_type == "BPE") {
    check_byte_level(file);
    return std::make_unique<BpeTokenizer>(vocab, bpe_merges(file), file.path, added_contents(file));
  }
  return std::make_unique<SentencePieceTokenizer>(file);  // Unigram (read_tokenizer_json took no other model)
}

}  // namespace

TokenizerJson read_tokenizer_json(const std::string& path) {
  return naming_json_errors(path, [&] { return read_tokenizer_json_as_is(path); });
}

std::vector<std::string> tokens_by_id(const TokenizerJson& file) {
  Vocabulary all = file.vocab;
  for (const auto& t : file.added_tokens) all[t.content] = t.id;
  return tokens_by_id(all, "tokenizer file '" + file.path + "'");
}

std::unique_ptr<Tokenizer> tokenizer_from_json(const TokenizerJson& file) {
  return naming_json_errors(file.path, [&] { return tokenizer_from_json_as_is(file); });
}

}  // namespace tune
