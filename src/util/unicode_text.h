// UTF-8 text walked code point by code point, and the Unicode properties the tokenizers share (as Hugging Face
// tokenizers defines them, from utf8proc's tables).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tune {

// Unicode White_Space (Rust's char::is_whitespace, which HF uses): the Z categories plus \t..\r and NEL.
bool is_white_space(int32_t code_point);

// Calls on_code_point(c, byte_offset, byte_length) for each code point of `text`. Throws std::invalid_argument
// with the byte offset when the text is not valid UTF-8.
void for_each_code_point(const std::string& text,
                         const std::function<void(int32_t, size_t, size_t)>& on_code_point);

// How many leading bytes of `text` are valid UTF-8 (text.size() when all are).
size_t valid_utf8_length(const std::string& text);

// The runs of `text` between white-space characters, as HF's WhitespaceSplit pre-tokenizer cuts them.
std::vector<std::string> split_on_white_space(const std::string& text);

}  // namespace tune
