// Splits a text at literal special tokens, as Hugging Face's added-token matching does (leftmost-longest),
// so that "[MASK]" in a text is the mask id rather than the pieces of "[", "mask", "]".
#include "data/special_tokens.h"

namespace tune {

SpecialTokens::SpecialTokens(const std::vector<std::string>& candidates,
                             const std::unordered_map<std::string, int64_t>& vocab) {
  for (const auto& token : candidates) {
    const auto it = vocab.find(token);
    if (it != vocab.end() && !token.empty()) tokens_.emplace_back(token, it->second);
  }
}

void SpecialTokens::encode(const std::string& text, std::vector<int64_t>& ids,
                           const std::function<void(const std::string&, std::vector<int64_t>&)>& encode_plain) const {
  std::vector<size_t> next(tokens_.size());  // each token's next occurrence at or after pos
  for (size_t t = 0; t < tokens_.size(); ++t) next[t] = text.find(tokens_[t].first);
  size_t pos = 0;
  while (true) {
    size_t best = tokens_.size();
    for (size_t t = 0; t < tokens_.size(); ++t) {
      if (next[t] != std::string::npos && next[t] < pos) next[t] = text.find(tokens_[t].first, pos);
      if (next[t] == std::string::npos) continue;
      if (best == tokens_.size() || next[t] < next[best] ||
          (next[t] == next[best] && tokens_[t].first.size() > tokens_[best].first.size()))
        best = t;
    }
    if (best == tokens_.size()) break;
    if (next[best] > pos) encode_plain(text.substr(pos, next[best] - pos), ids);
    ids.push_back(tokens_[best].second);
    pos = next[best] + tokens_[best].first.size();
  }
  if (pos == 0) encode_plain(text, ids);  // the usual case: no special token, no copy
  else if (pos < text.size()) encode_plain(text.substr(pos), ids);
}

}  // namespace tune
