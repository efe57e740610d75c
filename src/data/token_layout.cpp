// Derives a model's special-token ids from its tokenizer files: the role tokens by name ([CLS], <s>, ...) and
// the ordinary words as the ids between the leading and trailing runs of special or bracketed tokens.
#include "data/token_layout.h"

#include <filesystem>
#include <stdexcept>
#include <vector>

#include "data/sentencepiece_tokenizer.h"
#include "data/tokenizer_json.h"
#include "data/vocabulary.h"

namespace tune {
namespace fs = std::filesystem;
namespace {

struct Listing {
  std::vector<std::string> tokens;  // by id
  std::vector<bool> special;
  std::string source;
};

// "[CLS]", "[unused3]", "<s>", "<|endoftext|>": bracketed tokens that vocab.txt and vocab.json keep special.
bool bracketed(const std::string& t) {
  if (t.size() < 3) return false;
  const bool square = t.front() == '[' && t.back() == ']', angle = t.front() == '<' && t.back() == '>';
  return (square || angle) && t.find(' ') == std::string::npos;
}

Listing listing_of(std::vector<std::string> tokens, const std::string& source) {
  Listing l{std::move(tokens), {}, source};
  for (const auto& t : l.tokens) l.special.push_back(bracketed(t));
  return l;
}

Listing listing_from_tokenizer_json(const std::string& path) {
  const TokenizerJson file = read_tokenizer_json(path);
  Listing l = listing_of(tokens_by_id(file), path);
  for (const auto& t : file.added_tokens)
    if (t.special) l.special[static_cast<size_t>(t.id)] = true;
  return l;
}

std::optional<Listing> read_listing(const std::string& family, const fs::path& dir) {
  const auto at = [&](const char* name) { return (dir / name).string(); };
  const auto has = [&](const char* name) { return fs::is_regular_file(dir / name); };
  std::vector<bool> special;
  if (has("tokenizer.json")) return listing_from_tokenizer_json(at("tokenizer.json"));
  if (family == "t5" && has("spiece.model"))  // T5's <extra_id_N> come from the tokenizer class, not the file
    return Listing{sentencepiece_tokens(at("spiece.model"), SentencePieceIds::as_is, special), special, at("spiece.model")};
  const auto listed = [&](const Vocabulary& vocab, const std::string& file) {
    return listing_of(tokens_by_id(vocab, file), file);
  };
  if (has("vocab.txt")) return listed(read_vocab_txt(at("vocab.txt")), at("vocab.txt"));
  if (has("vocab.json")) return listed(read_vocab_json(at("vocab.json")), at("vocab.json"));
  if (has("sentencepiece.bpe.model"))
    return Listing{sentencepiece_tokens(at("sentencepiece.bpe.model"), SentencePieceIds::fairseq, special), special,
                   at("sentencepiece.bpe.model")};
  return std::nullopt;
}

int id_of(const Listing& l, const std::string& token, const std::string& family) {
  for (size_t i = 0; i < l.tokens.size(); ++i)
    if (l.tokens[i] == token) return static_cast<int>(i);
  throw std::invalid_argument("tokenizer file '" + l.source + "' has no token '" + token + "', which family " + family +
                              " needs");
}

// Role tokens by family: HF's cls/sep/mask (T5 starts with its pad as decoder start, ends with </s>).
void assign_roles(const Listing& l, const std::string& family, TokenLayout& out) {
  if (family == "bert" || family == "distilbert") {
    out.cls = id_of(l, "[CLS]", family), out.sep = id_of(l, "[SEP]", family), out.mask = id_of(l, "[MASK]", family);
  } else if (family == "roberta") {
    out.cls = id_of(l, "<s>", family), out.sep = id_of(l, "</s>", family), out.mask = id_of(l, "<mask>", family);
  } else if (family == "gpt2") {
    out.cls = out.sep = id_of(l, "<|endoftext|>", family);
  } else if (family == "t5") {
    out.cls = id_of(l, "<pad>", family), out.sep = id_of(l, "</s>", family);
    out.sentinel_first = id_of(l, "<extra_id_0>", family);
  }
}

}  // namespace

std::optional<TokenLayout> token_layout_from_files(const std::string& family, const std::string& dir) {
  const auto listing = read_listing(family, dir);
  if (!listing) return std::nullopt;
  const Listing& l = *listing;
  const auto ordinary = [&](size_t i) { return !l.tokens[i].empty() && !l.special[i]; };
  TokenLayout out;
  out.source = l.source;
  size_t first = 0, last = l.tokens.size();
  while (first < l.tokens.size() && !ordinary(first)) ++first;
  while (last > first && !ordinary(last - 1)) --last;
  if (first == last) throw std::invalid_argument("tokenizer file '" + l.source + "' holds no ordinary tokens");
  out.first_word = static_cast<int>(first);
  out.last_word = static_cast<int>(last - 1);
  assign_roles(l, family, out);
  return out;
}

TokenLayout family_token_layout(const std::string& family, int vocab_size, int eos_token_id) {
  TokenLayout out;
  out.source = "the usual " + family + " layout (no tokenizer files)";
  if (family == "bert" || family == "distilbert") {
    out.cls = 101, out.sep = 102, out.mask = 103;
    out.first_word = vocab_size >= 10000 ? 999 : 104;  // BERT's vocab.txt: [unusedN] up to id 998
  } else if (family == "roberta") {
    out.cls = 0, out.sep = 2, out.mask = vocab_size - 1, out.first_word = 4;
  } else if (family == "gpt2") {
    out.cls = out.sep = eos_token_id >= 0 ? eos_token_id : vocab_size - 1;
    out.first_word = 0;
  } else if (family == "t5") {
    out.cls = 0, out.sep = 1, out.first_word = 3, out.sentinel_first = vocab_size - 1;
  }
  const int top_special = family == "t5" ? 100 : family == "bert" || family == "distilbert" ? 0 : 1;
  out.last_word = vocab_size - 1 - top_special;
  return out;
}

void apply_token_layout(const TokenLayout& layout, ModelConfig& config) {
  config.cls_token_id = layout.cls;
  config.sep_token_id = layout.sep;
  if (layout.mask >= 0) config.mask_token_id = layout.mask;
  config.first_word_token_id = layout.first_word;
  config.last_word_token_id = layout.last_word;
  config.sentinel_first_token_id = layout.sentinel_first;
}

}  // namespace tune
