// Byte-level BPE as GPT-2 and Hugging Face tokenizers run it: regex pre-tokenisation, bytes mapped to
// printable characters (bytes_to_unicode), then the lowest-ranked merge applied until none applies.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "data/bpe_tokenizer.h"

#include <pcre2.h>

#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace tune {
namespace {

// GPT-2's pre-tokenisation pattern (encoder.py; HF's ByteLevel uses the same).
constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr size_t kMaxCachedWords = 200000;  // bounds the cache's memory on huge corpora

// GPT-2's bytes_to_unicode: printable bytes stand for themselves, the others map to U+0100 onwards.
std::array<std::string, 256> bytes_to_unicode() {
  std::array<std::string, 256> chars;
  int next = 256;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    const int code = printable ? b : next++;
    if (code < 0x80) chars[b] = std::string(1, static_cast<char>(code));
    else chars[b] = {static_cast<char>(0xC0 | (code >> 6)), static_cast<char>(0x80 | (code & 0x3F))};  // UTF-8
  }
  return chars;
}

uint64_t pair_key(int64_t left, int64_t right) {
  return (static_cast<uint64_t>(left) << 32) | static_cast<uint64_t>(right);
}

std::string pcre2_message(int code) {
  PCRE2_UCHAR buf[256];
  pcre2_get_error_message(code, buf, sizeof buf);
  return reinterpret_cast<const char*>(buf);
}

}  // namespace

struct BpeTokenizer::Pattern {
  pcre2_code* code = nullptr;
  ~Pattern() { pcre2_code_free(code); }
};

std::vector<BpeMerge> read_merges_txt(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("BPE merges '" + path + "' cannot be read");
  std::vector<BpeMerge> merges;
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("#version", 0) == 0 || line.empty()) continue;
    const auto space = line.find(' ');
    if (space == std::string::npos)
      throw std::invalid_argument("BPE merges '" + path + "' line " + std::to_string(line_no) + " ('" + line +
                                  "'): expected two tokens separated by a space");
    merges.emplace_back(line.substr(0, space), line.substr(space + 1));
  }
  return merges;
}

BpeTokenizer::BpeTokenizer(const std::string& vocab_json_path, const std::string& merges_path,
                           const std::vector<std::string>& special_tokens)
    : BpeTokenizer(read_vocab_json(vocab_json_path), read_merges_txt(merges_path),
                   vocab_json_path + " + " + merges_path, special_tokens) {}

BpeTokenizer::BpeTokenizer(const Vocabulary& vocab, const std::vector<BpeMerge>& merges, const std::string& source,
                           const std::vector<std::string>& special_tokens)
    : source_(source), pattern_(std::make_unique<Pattern>()) {
  specials_ = SpecialTokens(special_tokens, vocab);
  for (const auto& entry : vocab) id_end_ = std::max(id_end_, entry.second + 1);
  const auto byte_chars = bytes_to_unicode();
  for (int b = 0; b < 256; ++b) {
    const auto it = vocab.find(byte_chars[b]);
    if (it == vocab.end())
      throw std::invalid_argument("BPE vocabulary '" + source + "' lacks the token for byte " + std::to_string(b) +
                                  " ('" + byte_chars[b] + "')");
    byte_ids_[b] = it->second;
  }
  index_merges(merges, vocab);
  int error = 0;
  PCRE2_SIZE error_offset = 0;
  pattern_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kGpt2Pattern), PCRE2_ZERO_TERMINATED,
                                 PCRE2_UTF | PCRE2_UCP, &error, &error_offset, nullptr);
  if (!pattern_->code) throw std::logic_error("GPT-2 pattern does not compile: " + pcre2_message(error));
  pcre2_jit_compile(pattern_->code, PCRE2_JIT_COMPLETE);  // optional speed-up: without JIT it still matches
}

BpeTokenizer::~BpeTokenizer() = default;

// Ranks merges in order, best (lowest rank) first; each must join two vocabulary tokens into a third.
void BpeTokenizer::index_merges(const std::vector<BpeMerge>& merges, const Vocabulary& vocab) {
  int rank = 0;
  for (const auto& [left_token, right_token] : merges) {
    const auto left = vocab.find(left_token);
    const auto right = vocab.find(right_token);
    const auto merged = vocab.find(left_token + right_token);
    if (left == vocab.end() || right == vocab.end() || merged == vocab.end())
      throw std::invalid_argument("BPE merges of '" + source_ + "': merge " + std::to_string(rank + 1) + " ('" +
                                  left_token + " " + right_token +
                                  "'): not two tokens of the vocabulary whose join is one too");
    merges_[pair_key(left->second, right->second)] = Merge{rank++, merged->second};  // a repeat wins, as in HF
  }
}

std::vector<int64_t> BpeTokenizer::encode(const std::string& text) const {
  std::vector<int64_t> ids;
  specials_.encode(text, ids, [this](const std::string& segment, std::vector<int64_t>& out) {
    append_text_ids(segment, out);
  });
  return ids;
}

// Pre-tokenises with GPT-2's pattern and appends each piece's BPE ids.
void BpeTokenizer::append_text_ids(const std::string& text, std::vector<int64_t>& ids) const {
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match(
      pcre2_match_data_create_from_pattern(pattern_->code, nullptr), &pcre2_match_data_free);
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  uint32_t options = 0;  // the first match checks the whole text is UTF-8; later ones skip that check
  for (PCRE2_SIZE pos = 0; pos < text.size(); options = PCRE2_NO_UTF_CHECK) {
    const int rc = pcre2_match(pattern_->code, subject, text.size(), pos, options, match.get(), nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;  // unreachable: every character matches one branch
    if (rc < 0)
      throw std::invalid_argument("text to tokenize: " + pcre2_message(rc) + " (at byte " +
                                  std::to_string(pcre2_get_startchar(match.get())) + ")");
    const PCRE2_SIZE* span = pcre2_get_ovector_pointer(match.get());
    append_word_ids(text.substr(span[0], span[1] - span[0]), ids);
    pos = span[1];
  }
}

void BpeTokenizer::append_word_ids(const std::string& word, std::vector<int64_t>& ids) const {
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    const auto it = cache_.find(word);
    if (it != cache_.end()) {
      ids.insert(ids.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  const auto word_ids = bpe(word);
  ids.insert(ids.end(), word_ids.begin(), word_ids.end());
  std::lock_guard<std::mutex> lock(cache_mutex_);
  if (cache_.size() < kMaxCachedWords) cache_.emplace(word, word_ids);
}

// GPT-2's bpe(): merge every occurrence of the lowest-ranked adjacent pair, left to right, until none ranks.
std::vector<int64_t> BpeTokenizer::bpe(const std::string& word) const {
  std::vector<int64_t> symbols;
  for (const unsigned char b : word) symbols.push_back(byte_ids_[b]);
  while (symbols.size() > 1) {
    const Merge* best = nullptr;
    uint64_t best_key = 0;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      const auto it = merges_.find(pair_key(symbols[i], symbols[i + 1]));
      if (it != merges_.end() && (!best || it->second.rank < best->rank)) {
        best = &it->second;
        best_key = it->first;
      }
    }
    if (!best) break;
    std::vector<int64_t> merged;
    for (size_t i = 0; i < symbols.size(); ++i) {
      if (i + 1 < symbols.size() && pair_key(symbols[i], symbols[i + 1]) == best_key) {
        merged.push_back(best->merged_id);
        ++i;
      } else {
        merged.push_back(symbols[i]);
      }
    }
    symbols.swap(merged);
  }
  return symbols;
}

std::string BpeTokenizer::describe() const {
  return "byte-level BPE tokenizer from " + source_ + " (" + std::to_string(id_end_) + " ids, " +
         std::to_string(merges_.size()) + " merges)";
}

}  // namespace tune
