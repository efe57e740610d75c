// tokenizer.json's Unigram model (T5, XLM-R and other SentencePiece conversions) turned back into a SentencePiece
// model: pieces, scores, normalizer and whitespace handling written as sentencepiece's ModelProto for libsentencepiece.
#pragma once
#include <string>

#include "data/tokenizer_json.h"

namespace tune {

// Serialized ModelProtos (protobuf wire format). HF's order is normalizer, pre-tokenizer, model: the text is
// normalized whole (normalizer_proto), cut into words (split_on_white_space), then each word encoded (model_proto).
struct SentencePieceFromJson {
  std::string model_proto;            // the pieces, with Metaspace's prefix and no normalizer of its own
  std::string normalizer_proto;       // the normalizer alone; empty when the file has none
  bool split_on_white_space = false;  // the pre-tokenizer has WhitespaceSplit: words are encoded one by one
};

// A Unigram tokenizer.json as sentencepiece's model. Its normalizer must be HF's conversion of a SentencePiece
// one (none, or a Precompiled charsmap with optionally a Replace of repeated spaces) and its pre-tokenizer
// Metaspace, after WhitespaceSplit or not; anything else throws std::invalid_argument naming the file and the part.
SentencePieceFromJson sentencepiece_from_json(const TokenizerJson& file);

}  // namespace tune
