// T5 and XLM-RoBERTa SentencePiece tokenizer from a .model file, run by the sentencepiece library itself.
// XLM-R's ids are fairseq's: SentencePiece's shifted by one, with <s>=0 <pad>=1 </s>=2 <unk>=3.
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

class SentencePieceTokenizer : public Tokenizer {
 public:
  // Throws std::invalid_argument naming the file when sentencepiece cannot load it.
  SentencePieceTokenizer(const std::string& model_path, SentencePieceIds ids);
  ~SentencePieceTokenizer() override;
  // Each line is encoded on its own (a whole corpus as one input would make one huge lattice), as
  // spm_encode does; in fairseq mode <s> <pad> </s> <unk> <mask> written in the text get their own ids.
  std::vector<int64_t> encode(const std::string& text) const override;
  std::string describe() const override;
  int64_t id_end() const override;

 private:
  void append_piece_ids(const std::string& text, std::vector<int64_t>& ids) const;

  std::string model_path_;
  SentencePieceIds ids_;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> processor_;
  SpecialTokens specials_;
};

}  // namespace tune
