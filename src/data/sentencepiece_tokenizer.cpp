// SentencePiece encoding through libsentencepiece, with the fairseq id shift that XLM-RoBERTa's
// checkpoints expect (Hugging Face XLMRobertaTokenizer's fairseq_offset).
#include "data/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <stdexcept>

#include "data/sentencepiece_json.h"
#include "data/tokenizer_json.h"
#include "util/unicode_text.h"

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

std::unique_ptr<sentencepiece::SentencePieceProcessor> processor_from_proto(const std::string& proto,
                                                                            const std::string& path) {
  auto processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
  const auto status = processor->LoadFromSerializedProto(proto);
  if (!status.ok())
    throw std::invalid_argument("tokenizer file '" + path + "': sentencepiece cannot load its Unigram model: " +
                                status.ToString());
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
    : source_(model_path), ids_(ids), processor_(load_processor(model_path)) {
  const int64_t pieces = processor_->GetPieceSize();
  id_end_ = ids_ == SentencePieceIds::as_is ? pieces : pieces + kFairseqOffset + 1;  // + 1: <mask>
  if (ids_ == SentencePieceIds::fairseq)
    specials_ = SpecialTokens({"<s>", "<pad>", "</s>", "<unk>", "<mask>"},
                              {{"<s>", 0}, {"<pad>", 1}, {"</s>", 2}, {"<unk>", kFairseqUnkId}, {"<mask>", id_end() - 1}});
}

SentencePieceTokenizer::SentencePieceTokenizer(const TokenizerJson& file)
    : source_(file.path), ids_(SentencePieceIds::as_is) {
  const SentencePieceFromJson model = sentencepiece_from_json(file);
  processor_ = processor_from_proto(model.model_proto, file.path);
  if (!model.normalizer_proto.empty()) normalizer_ = processor_from_proto(model.normalizer_proto, file.path);
  split_on_white_space_ = model.split_on_white_space;
  std::vector<std::string> added;
  std::unordered_map<std::string, int64_t> added_ids;
  id_end_ = processor_->GetPieceSize();
  for (const auto& t : file.added_tokens) {
    added.push_back(t.content);
    added_ids[t.content] = t.id;
    id_end_ = std::max(id_end_, t.id + 1);
  }
  specials_ = SpecialTokens(added, added_ids);
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

// HF's WhitespaceSplit cuts at every Unicode White_Space character; sentencepiece alone knows only ' '.
void SentencePieceTokenizer::append_piece_ids(const std::string& text, std::vector<int64_t>& ids) const {
  const std::string normalized = normalizer_ ? normalize(text) : text;
  if (!split_on_white_space_) return append_word_ids(normalized, ids);
  for (const auto& word : split_on_white_space(normalized)) append_word_ids(word, ids);
}

// The normalizer model's pieces are all unknown: each one's surface is a stretch of the normalized text.
std::string SentencePieceTokenizer::normalize(const std::string& text) const {
  std::vector<std::string> pieces;
  const auto status = normalizer_->Encode(text, &pieces);
  if (!status.ok()) throw std::invalid_argument("SentencePiece cannot normalize a line: " + status.ToString());
  std::string normalized;
  for (const auto& piece : pieces) normalized += piece;
  return normalized;
}

// XLM-R's ids as Hugging Face maps them: SentencePiece's <unk> (id 0) is fairseq's <unk>, others shift by one.
void SentencePieceTokenizer::append_word_ids(const std::string& text, std::vector<int64_t>& ids) const {
  std::vector<int> piece_ids;
  const auto status = processor_->Encode(text, &piece_ids);
  if (!status.ok()) throw std::invalid_argument("SentencePiece cannot encode a line: " + status.ToString());
  for (const int id : piece_ids) {
    if (ids_ == SentencePieceIds::as_is) ids.push_back(id);
    else ids.push_back(id == 0 ? kFairseqUnkId : id + kFairseqOffset);
  }
}

int64_t SentencePieceTokenizer::id_end() const { return id_end_; }

std::string SentencePieceTokenizer::describe() const {
  return "SentencePiece tokenizer from " + source_ + " (" + std::to_string(processor_->GetPieceSize()) +
         " pieces" + (ids_ == SentencePieceIds::fairseq ? ", fairseq ids as XLM-R)" : ")");
}

}  // namespace tune
