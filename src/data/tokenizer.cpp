// The tokenizer factory and the hashing fallback. Real tokenizers (WordPiece, byte-level BPE,
// SentencePiece) are chosen by family and by the files present in the --tokenizer folder.
#include "data/tokenizer.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "data/bpe_tokenizer.h"
#include "data/sentencepiece_tokenizer.h"
#include "data/text_corpus.h"
#include "data/tokenizer_json.h"
#include "data/wordpiece_tokenizer.h"

namespace tune {
namespace fs = std::filesystem;

HashWordTokenizer::HashWordTokenizer(const ModelConfig& model)
    : first_id_(model.first_word_token_id), end_id_(model.word_id_end()) {}

std::vector<int64_t> HashWordTokenizer::encode(const std::string& text) const {
  return hash_token_ids(split_words(text), first_id_, end_id_);
}

std::string HashWordTokenizer::describe() const {
  return "fallback tokenizer: hashed words into ids " + std::to_string(first_id_) + ".." + std::to_string(end_id_ - 1) +
         " (give --tokenizer DIR for the model's own)";
}

namespace {

const std::vector<std::string> kGpt2Specials = {"<|endoftext|>"};
const std::vector<std::string> kRobertaSpecials = {"<s>", "<pad>", "</s>", "<unk>", "<mask>"};

// tokenizer_config.json, when the folder has one (HF's saved tokenizers do); an empty object otherwise.
nlohmann::json read_tokenizer_config(const fs::path& dir) {
  const fs::path path = dir / "tokenizer_config.json";
  if (!fs::exists(path)) return nlohmann::json::object();
  std::ifstream in(path);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("tokenizer config '" + path.string() + "' is not valid JSON: " + e.what());
  }
}

bool config_bool(const nlohmann::json& config, const std::string& key, bool fallback, const fs::path& dir) {
  if (!config.contains(key) || config[key].is_null()) return fallback;
  if (!config[key].is_boolean())
    throw std::invalid_argument("tokenizer config '" + (dir / "tokenizer_config.json").string() + "': '" + key +
                                "' is " + config[key].dump() + ", expected true or false");
  return config[key].get<bool>();
}

// do_lower_case from tokenizer_config.json, else "uncased" in the folder or model name (HF's naming).
std::unique_ptr<Tokenizer> make_wordpiece(const ModelConfig& model, const fs::path& dir) {
  const auto config = read_tokenizer_config(dir);
  const bool named_uncased = fs::weakly_canonical(dir).filename().string().find("uncased") != std::string::npos ||
                             model.name.find("uncased") != std::string::npos;
  WordPieceOptions options;
  options.lowercase = config_bool(config, "do_lower_case", named_uncased, dir);
  options.strip_accents = config_bool(config, "strip_accents", options.lowercase, dir);
  options.split_cjk = config_bool(config, "tokenize_chinese_chars", true, dir);
  if (config.contains("unk_token") && config["unk_token"].is_string()) options.unk_token = config["unk_token"];
  return std::make_unique<WordPieceTokenizer>((dir / "vocab.txt").string(), options);
}

bool has(const fs::path& dir, const char* file) { return fs::is_regular_file(dir / file); }

// The family's own (slow-tokenizer) files; nullptr when none of them are there.
std::unique_ptr<Tokenizer> tokenizer_from_family_files(const ModelConfig& model, const fs::path& dir) {
  const std::string& f = model.family;
  if ((f == "bert" || f == "distilbert") && has(dir, "vocab.txt")) return make_wordpiece(model, dir);
  if ((f == "gpt2" || f == "roberta") && has(dir, "vocab.json") && has(dir, "merges.txt"))
    return std::make_unique<BpeTokenizer>((dir / "vocab.json").string(), (dir / "merges.txt").string(),
                                          f == "gpt2" ? kGpt2Specials : kRobertaSpecials);
  if (f == "roberta" && has(dir, "sentencepiece.bpe.model"))
    return std::make_unique<SentencePieceTokenizer>((dir / "sentencepiece.bpe.model").string(),
                                                    SentencePieceIds::fairseq);
  if (f == "t5" && has(dir, "spiece.model"))
    return std::make_unique<SentencePieceTokenizer>((dir / "spiece.model").string(), SentencePieceIds::as_is);
  return nullptr;
}

// tokenizer.json first, as transformers' AutoTokenizer loads the fast tokenizer. nullptr when the folder has no
// file tune reads.
std::unique_ptr<Tokenizer> tokenizer_from_files(const ModelConfig& model, const fs::path& dir) {
  if (!has(dir, "tokenizer.json")) return tokenizer_from_family_files(model, dir);
  return tokenizer_from_json(read_tokenizer_json((dir / "tokenizer.json").string()));
}

std::string expected_files(const std::string& family) {
  if (family == "bert" || family == "distilbert") return "tokenizer.json or vocab.txt";
  if (family == "gpt2") return "tokenizer.json, or vocab.json and merges.txt";
  if (family == "roberta") return "tokenizer.json, vocab.json and merges.txt, or sentencepiece.bpe.model";
  if (family == "t5") return "tokenizer.json or spiece.model";
  return "(no tokenizer known for this family)";
}

}  // namespace

bool has_tokenizer_files(const std::string& family, const std::string& dir) {
  const fs::path d(dir);
  if (has(d, "tokenizer.json")) return true;
  if (family == "t5") return has(d, "spiece.model");
  if (family == "bert" || family == "distilbert") return has(d, "vocab.txt");
  if (family == "gpt2") return has(d, "vocab.json") && has(d, "merges.txt");
  if (family == "roberta") return (has(d, "vocab.json") && has(d, "merges.txt")) || has(d, "sentencepiece.bpe.model");
  return false;
}

std::unique_ptr<Tokenizer> make_tokenizer(const ModelConfig& model, const std::string& tokenizer_dir) {
  if (tokenizer_dir.empty()) return std::make_unique<HashWordTokenizer>(model);
  if (!fs::is_directory(tokenizer_dir))
    throw std::invalid_argument("tokenizer folder '" + tokenizer_dir + "' does not exist or is not a folder");
  auto tokenizer = tokenizer_from_files(model, tokenizer_dir);
  if (!tokenizer)
    throw std::invalid_argument("tokenizer folder '" + tokenizer_dir + "' has no tokenizer files for family '" +
                                model.family + "': expected " + expected_files(model.family));
  if (tokenizer->id_end() > model.vocab_size)
    throw std::invalid_argument("tokenizer folder '" + tokenizer_dir + "': its ids reach " +
                                std::to_string(tokenizer->id_end() - 1) + ", beyond model " + model.name +
                                "'s vocab_size " + std::to_string(model.vocab_size));
  return tokenizer;
}

}  // namespace tune
