// WordPiece as Hugging Face tokenizers runs it for BERT: BertNormalizer (clean text, pad CJK, NFD accent
// stripping, lowercase), BertPreTokenizer (whitespace and punctuation), then greedy longest-match-first pieces.
#include "data/wordpiece_tokenizer.h"

#include "util/unicode_text.h"

#include <utf8proc.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <stdexcept>

namespace tune {
namespace {

utf8proc_category_t category_of(utf8proc_int32_t c) {
  return static_cast<utf8proc_category_t>(utf8proc_category(c));
}

// HF removes "other" characters (Cc, Cf, Co, Cs, Cn) but keeps tab and newlines as whitespace.
bool is_control(utf8proc_int32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  const auto cat = category_of(c);
  return cat == UTF8PROC_CATEGORY_CC || cat == UTF8PROC_CATEGORY_CF || cat == UTF8PROC_CATEGORY_CO ||
         cat == UTF8PROC_CATEGORY_CS || cat == UTF8PROC_CATEGORY_CN;
}

// BERT counts all ASCII symbols ($, +, ^, ...) as punctuation, besides Unicode's P categories.
bool is_punctuation(utf8proc_int32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
  const auto cat = category_of(c);
  return cat >= UTF8PROC_CATEGORY_PC && cat <= UTF8PROC_CATEGORY_PO;
}

// The CJK Unified Ideograph blocks of BERT's original tokenizer (a definition of BERT's, not a Unicode property).
bool is_cjk(utf8proc_int32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

void append_utf8(utf8proc_int32_t c, std::string& out) {
  utf8proc_uint8_t buf[4];
  out.append(reinterpret_cast<const char*>(buf), static_cast<size_t>(utf8proc_encode_char(c, buf)));
}

// BertPreTokenizer: whitespace ends a word, each punctuation mark is a word of its own.
class WordCollector {
 public:
  explicit WordCollector(std::function<void(const std::string&)> on_word) : on_word_(std::move(on_word)) {}
  void push(utf8proc_int32_t c) {
    if (is_white_space(c)) return flush();
    if (is_punctuation(c)) {
      flush();
      append_utf8(c, word_);
      return flush();
    }
    append_utf8(c, word_);
  }
  void flush() {
    if (word_.empty()) return;
    on_word_(word_);
    word_.clear();
  }

 private:
  std::function<void(const std::string&)> on_word_;
  std::string word_;
};

// Rust's char::to_lowercase is the full mapping; U+0130 is the one unconditional multi-character case.
void push_lowercased(utf8proc_int32_t c, bool lowercase, WordCollector& out) {
  if (!lowercase) return out.push(c);
  if (c == 0x130) {
    out.push('i');
    return out.push(0x307);
  }
  out.push(c < 0x80 ? static_cast<utf8proc_int32_t>(std::tolower(c)) : utf8proc_tolower(c));
}

// Accent stripping is NFD then dropping nonspacing marks (Mn). Per character: the canonical reordering of
// NFD only moves combining marks, and those with a non-zero combining class are Mn, dropped anyway.
void push_accent_stripped(utf8proc_int32_t c, const WordPieceOptions& o, WordCollector& out) {
  if (!o.strip_accents || c < 0x80) return push_lowercased(c, o.lowercase, out);  // ASCII has no accents
  utf8proc_int32_t parts[32];
  int boundclass = UTF8PROC_BOUNDCLASS_START;
  const auto n = utf8proc_decompose_char(c, parts, 32, UTF8PROC_DECOMPOSE, &boundclass);
  if (n < 0 || n > 32) throw std::logic_error("utf8proc could not decompose U+" + std::to_string(c));
  for (utf8proc_ssize_t i = 0; i < n; ++i)
    if (category_of(parts[i]) != UTF8PROC_CATEGORY_MN) push_lowercased(parts[i], o.lowercase, out);
}

// BertNormalizer for one character, in HF's order: clean text, pad CJK, strip accents, lowercase.
void normalize_into(utf8proc_int32_t c, const WordPieceOptions& o, WordCollector& out) {
  if (c == 0 || c == 0xFFFD || is_control(c)) return;
  if (is_white_space(c)) return out.push(' ');
  if (o.split_cjk && is_cjk(c)) {
    out.push(' ');
    push_accent_stripped(c, o, out);
    return out.push(' ');
  }
  push_accent_stripped(c, o, out);
}

// Calls on_word for each pre-tokenised word of the normalised text.
void for_each_word(const std::string& text, const WordPieceOptions& o,
                   std::function<void(const std::string&)> on_word) {
  WordCollector words(std::move(on_word));
  for_each_code_point(text, [&](int32_t c, size_t, size_t) { normalize_into(c, o, words); });
  words.flush();
}

}  // namespace

WordPieceTokenizer::WordPieceTokenizer(const std::string& vocab_path, const WordPieceOptions& options)
    : WordPieceTokenizer(read_vocab_txt(vocab_path), vocab_path, options) {}

WordPieceTokenizer::WordPieceTokenizer(Vocabulary vocab, const std::string& source, const WordPieceOptions& options)
    : vocab_path_(source), options_(options), vocab_(std::move(vocab)) {
  for (const auto& entry : vocab_) id_end_ = std::max(id_end_, entry.second + 1);
  const auto unk = vocab_.find(options_.unk_token);
  if (unk == vocab_.end())
    throw std::invalid_argument("WordPiece vocabulary '" + source + "' lacks the unknown token '" +
                                options_.unk_token + "'");
  unk_id_ = unk->second;
  specials_ = SpecialTokens(options_.special_tokens, vocab_);
}

std::vector<int64_t> WordPieceTokenizer::encode(const std::string& text) const {
  std::vector<int64_t> ids;
  specials_.encode(text, ids, [this](const std::string& segment, std::vector<int64_t>& out) {
    for_each_word(segment, options_, [&](const std::string& word) { append_word_ids(word, out); });
  });
  return ids;
}

// Greedy longest-match-first; a word with any unmatched rest is a single unknown token, as in BERT.
void WordPieceTokenizer::append_word_ids(const std::string& word, std::vector<int64_t>& ids) const {
  const auto whole = vocab_.find(word);  // most words of a text are one piece: skip the character walk
  if (whole != vocab_.end() && word.size() <= static_cast<size_t>(options_.max_chars_per_word))
    return ids.push_back(whole->second);
  std::vector<size_t> bounds;  // byte offset of each character, then the word's end
  for (size_t i = 0; i < word.size(); ++i)
    if ((static_cast<unsigned char>(word[i]) & 0xC0) != 0x80) bounds.push_back(i);
  const size_t n_chars = bounds.size();
  bounds.push_back(word.size());
  if (n_chars > static_cast<size_t>(options_.max_chars_per_word)) return ids.push_back(unk_id_);
  std::vector<int64_t> pieces;
  std::string candidate;
  for (size_t start = 0; start < n_chars;) {
    size_t end = n_chars;
    int64_t id = -1;
    for (; end > start; --end) {
      candidate.assign(start > 0 ? options_.continuing_prefix : "");
      candidate.append(word, bounds[start], bounds[end] - bounds[start]);
      const auto it = vocab_.find(candidate);
      if (it != vocab_.end()) {
        id = it->second;
        break;
      }
    }
    if (id < 0) return ids.push_back(unk_id_);
    pieces.push_back(id);
    start = end;
  }
  ids.insert(ids.end(), pieces.begin(), pieces.end());
}

std::string WordPieceTokenizer::describe() const {
  return "WordPiece tokenizer from " + vocab_path_ + " (" + std::to_string(id_end_) + " tokens, " +
         (options_.lowercase ? "lowercased" : "cased") + (options_.strip_accents ? ", accents stripped" : "") + ")";
}

}  // namespace tune
