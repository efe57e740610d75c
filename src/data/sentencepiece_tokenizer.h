// T5 and XLM-RoBERTa SentencePiece tokenizers (a .model file or a Unigram tokenizer.json) run by libsentencepiece;
// XLM-R's .model ids are fairseq's: SentencePiece's shifted by one, with <s>=0 <pad>=1 </s>=2 <unk>=3.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/special_tokens.h"
#include "data/tokenizer.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace tune {

enum class SentencePieceIds {
  as_is,    // T5: spiece.model ids unchanged
  fairseq,  // XLM-R: piece id + 1, SentencePiece's <unk> (0) -> 3, <mask> last; its specials matched verbatim
};

// Every token by tune's id for the model file: fairseq ids <s> <pad> </s> <unk>, the pieces, <mask>; as_is ids the
// pieces, then HF T5Tokenizer's 100 <extra_id_N> with <extra_id_0> last. special[i]: a control, unknown or added
// token. Throws std::invalid_argument naming the file when sentencepiece cannot load it.
std::vector<std::string> sentencepiece_tokens(const std::string& model_path, SentencePieceIds ids,
                                              std::vector<bool>& special);

struct TokenizerJson;

class SentencePieceTokenizer : public Tokenizer {
 public:
  // Throws std::invalid_argument naming the file when sentencepiece cannot load it.
  SentencePieceTokenizer(const std::string& model_path, SentencePieceIds ids);
  // A Unigram tokenizer.json, as HF tokenizers runs it: ids are the file's, its added tokens are matched verbatim,
  // and with a WhitespaceSplit pre-tokenizer each word is encoded alone. Throws naming the file and the part tune
  // does not implement.
  explicit SentencePieceTokenizer(const TokenizerJson& file);
  ~SentencePieceTokenizer() override;
  // Each line is encoded on its own (a whole corpus as one input would make one huge lattice), as
  // spm_encode does; in fairseq mode <s> <pad> </s> <unk> <mask> written in the text get their own ids.
  std::vector<int64_t> encode(const std::string& text) const override;
  std::string describe() const override;
  int64_t id_end() const override;

 private:
  void append_piece_ids(const std::string& text, std::vector<int64_t>& ids) const;
  void append_word_ids(const std::string& text, std::vector<int64_t>& ids) const;
  std::string normalize(const std::string& text) const;

  std::string source_;  // the file the model came from, for describe()
  SentencePieceIds ids_;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> processor_;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> normalizer_;  // tokenizer.json's normalizer, if any
  SpecialTokens specials_;
  bool split_on_white_space_ = false;
  int64_t id_end_ = 0;
};

}  // namespace tune
