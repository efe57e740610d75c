// SentencePiece encoding through libsentencepiece, with the fairseq id shift that XLM-RoBERTa's
// checkpoints expect (Hugging Face XLMRobertaTokenizer's fairseq_offset).
#include "data/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>

#include <stdexcept>

namespace tune {
namespace {

constexpr int64_t kFairseqOffset = 1;
constexpr int64_t kFairseqUnkId = 3;  // <s>=0 <pad>=1 </s>=2 <unk>=3, then pieces from 4, then <mask>
constexpr int kT5ExtraIds = 100;      // T5Tokenizer's default extra_ids

std::unique_ptr<sentencepiece::SentencePieceProcessor> load_processor(const std::string& model_path) {
  auto processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
  const auto status = processor->Load(model_path);
  if (!status.ok())
    throw std::invalid_argument("SentencePiece model '" + model_path + "' cannot be loaded: " + status.ToString());
  return processor;
}

}  // namespace

std::vector<std::string> sentencepiece_tokens(const std::string& model_path, SentencePieceIds ids,
                                              std::vector<bool>& special) {
  const auto processor = load_processor(model_path);
  const int pieces = processor->GetPieceSize();
  std::vector<std::string> tokens;
  special.clear();
  const auto add = [&](const std::string& token, bool is_special) {
    tokens.push_back(token);
    special.push_back(is_special);
  };
  if (ids == SentencePieceIds::fairseq)
    for (const char* t : {"<s>", "<pad>", "</s>", "<unk>"}) add(t, true);
  // fairseq: SentencePiece's <unk> <s> </s> (ids 0-2) are the four above; piece id i >= 3 is tune's i + 1.
  for (int i = ids == SentencePieceIds::fairseq ? 3 : 0; i < pieces; ++i)
    add(processor->IdToPiece(i), processor->IsControl(i) || processor->IsUnknown(i));
  if (ids == SentencePieceIds::fairseq) add("<mask>", true);
  else
    for (int n = kT5ExtraIds - 1; n >= 0; --n) add("<extra_id_" + std::to_string(n) + ">", true);
  return tokens;
}

SentencePieceTokenizer::SentencePieceTokenizer(const std::string& model_path, SentencePieceIds ids)
    : model_path_(model_path), ids_(ids), processor_(load_processor(model_path)) {
  if (ids_ == SentencePieceIds::fairseq)
    specials_ = SpecialTokens({"<s>", "<pad>", "</s>", "<unk>", "<mask>"},
                              {{"<s>", 0}, {"<pad>", 1}, {"</s>", 2}, {"<unk>", kFairseqUnkId}, {"<mask>", id_end() - 1}});
}

SentencePieceTokenizer::~SentencePieceTokenizer() = default;

std::vector<int64_t> SentencePieceTokenizer::encode(const std::string& text) const {
  std::vector<int64_t> ids;
  const auto append = [this](const std::string& segment, std::vector<int64_t>& out) {
    append_piece_ids(segment, out);
  };
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) specials_.encode(text.substr(start, end - start), ids, append);
    start = end + 1;
  }
  return ids;
}

// XLM-R's ids as Hugging Face maps them: SentencePiece's <unk> (id 0) is fairseq's <unk>, others shift by one.
void SentencePieceTokenizer::append_piece_ids(const std::string& text, std::vector<int64_t>& ids) const {
  std::vector<int> piece_ids;
  const auto status = processor_->Encode(text, &piece_ids);
  if (!status.ok()) throw std::invalid_argument("SentencePiece cannot encode a line: " + status.ToString());
  for (const int id : piece_ids) {
    if (ids_ == SentencePieceIds::as_is) ids.push_back(id);
    else ids.push_back(id == 0 ? kFairseqUnkId : id + kFairseqOffset);
  }
}

int64_t SentencePieceTokenizer::id_end() const {
  const int64_t pieces = processor_->GetPieceSize();
  return ids_ == SentencePieceIds::as_is ? pieces : pieces + kFairseqOffset + 1;  // + 1: <mask>
}

std::string SentencePieceTokenizer::describe() const {
  return "SentencePiece tokenizer from " + model_path_ + " (" + std::to_string(processor_->GetPieceSize()) +
         " pieces" + (ids_ == SentencePieceIds::fairseq ? ", fairseq ids as XLM-R)" : ")");
}

}  // namespace tune
