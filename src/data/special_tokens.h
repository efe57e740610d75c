// Special tokens written literally in a text ("[MASK]", "<|endoftext|>"): Hugging Face matches them in the
// raw text before normalising, and encodes the text around them on its own.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tune {

class SpecialTokens {
 public:
  SpecialTokens() = default;
  // The candidates that are in the vocabulary, with their ids; the others are ignored.
  SpecialTokens(const std::vector<std::string>& candidates, const std::unordered_map<std::string, int64_t>& vocab);

  // Appends the ids of `text`: a special token's own id where one occurs (leftmost, then longest), and
  // encode_plain(segment, ids) for each stretch of text between them.
  void encode(const std::string& text, std::vector<int64_t>& ids,
              const std::function<void(const std::string&, std::vector<int64_t>&)>& encode_plain) const;

 private:
  std::vector<std::pair<std::string, int64_t>> tokens_;
};

}  // namespace tune
