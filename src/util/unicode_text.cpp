// Code point iteration and White_Space over utf8proc, shared by the WordPiece and SentencePiece tokenizers so that
// both cut text where HF tokenizers does.
#include "util/unicode_text.h"

#include <utf8proc.h>

#include <stdexcept>

namespace tune {

bool is_white_space(int32_t c) {
  if ((c >= 0x09 && c <= 0x0D) || c == 0x85) return true;
  const auto cat = static_cast<utf8proc_category_t>(utf8proc_category(c));
  return cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL || cat == UTF8PROC_CATEGORY_ZP;
}

void for_each_code_point(const std::string& text,
                         const std::function<void(int32_t, size_t, size_t)>& on_code_point) {
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  for (size_t pos = 0; pos < text.size();) {
    utf8proc_int32_t c = 0;
    const auto n = utf8proc_iterate(bytes + pos, static_cast<utf8proc_ssize_t>(text.size() - pos), &c);
    if (n <= 0)
      throw std::invalid_argument("text to tokenize is not valid UTF-8 at byte " + std::to_string(pos) + ": " +
                                  utf8proc_errmsg(n));
    on_code_point(c, pos, static_cast<size_t>(n));
    pos += static_cast<size_t>(n);
  }
}

size_t valid_utf8_length(const std::string& text) {
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  size_t pos = 0;
  while (pos < text.size()) {
    utf8proc_int32_t c = 0;
    const auto n = utf8proc_iterate(bytes + pos, static_cast<utf8proc_ssize_t>(text.size() - pos), &c);
    if (n <= 0) return pos;
    pos += static_cast<size_t>(n);
  }
  return pos;
}

std::vector<std::string> split_on_white_space(const std::string& text) {
  std::vector<std::string> words;
  size_t word_start = 0;
  for_each_code_point(text, [&](int32_t c, size_t pos, size_t length) {
    if (!is_white_space(c)) return;
    if (pos > word_start) words.push_back(text.substr(word_start, pos - word_start));
    word_start = pos + length;
  });
  if (text.size() > word_start) words.push_back(text.substr(word_start));
  return words;
}

}  // namespace tune
