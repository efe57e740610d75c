// Writes a SentencePiece ModelProto from tokenizer.json by hand in protobuf's wire format (varints and
// length-delimited fields; Debian's libsentencepiece-dev ships no .pb.h), so the library itself runs the Unigram model.
#include "data/sentencepiece_json.h"

#include <boost/archive/iterators/binary_from_base64.hpp>
#include <boost/archive/iterators/transform_width.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <stdexcept>

namespace tune {
namespace {

// sentencepiece_model.proto's field numbers and enums.
enum PieceType { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4 };
constexpr int kModelPieces = 1, kModelTrainerSpec = 2, kModelNormalizerSpec = 3;
constexpr int kPieceText = 1, kPieceScore = 2, kPieceType = 3;
constexpr int kTrainerModelType = 3, kTrainerVocabSize = 4, kTrainerUnkId = 40, kTrainerBosId = 41,
              kTrainerEosId = 42, kTrainerPadId = 43;
constexpr int kUnigram = 1;
constexpr int kNormName = 1, kNormCharsmap = 2, kNormDummyPrefix = 3, kNormRemoveSpaces = 4, kNormEscapeSpaces = 5;

void put_varint(std::string& out, uint64_t v) {
  for (; v >= 0x80; v >>= 7) out += static_cast<char>((v & 0x7F) | 0x80);
  out += static_cast<char>(v);
}
void put_int(std::string& out, int field, int64_t v) {
  put_varint(out, static_cast<uint64_t>(field) << 3);  // wire type 0: varint (negative: ten bytes, as protobuf)
  put_varint(out, static_cast<uint64_t>(v));
}
void put_bytes(std::string& out, int field, const std::string& bytes) {
  put_varint(out, (static_cast<uint64_t>(field) << 3) | 2);
  put_varint(out, bytes.size());
  out += bytes;
}
void put_float(std::string& out, int field, float f) {
  put_varint(out, (static_cast<uint64_t>(field) << 3) | 5);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  for (int i = 0; i < 4; ++i) out += static_cast<char>((bits >> (8 * i)) & 0xFF);  // little-endian fixed32
}

std::string base64_decode(std::string text) {
  using namespace boost::archive::iterators;
  using Decoder = transform_width<binary_from_base64<std::string::const_iterator>, 8, 6>;
  const size_t padding = text.size() - text.find_last_not_of('=') - 1;
  std::replace(text.begin(), text.end(), '=', 'A');  // padding decodes as zero bits, dropped below
  std::string bytes(Decoder(text.cbegin()), Decoder(text.cend()));
  bytes.resize(bytes.size() - padding);
  return bytes;
}

[[noreturn]] void unsupported(const TokenizerJson& f, const std::string& what) {
  throw std::invalid_argument("tokenizer file '" + f.path + "': " + what +
                              " is not one tune implements for a Unigram model (expected HF's conversion of a "
                              "SentencePiece model: Precompiled and Replace normalizers, Metaspace pre-tokenizer)");
}

struct Normalization {
  std::string charsmap;  // decoded precompiled_charsmap
  bool remove_extra_spaces = false, dummy_prefix = true, split_on_white_space = false;
};

void read_normalizer(const TokenizerJson& f, const nlohmann::json& n, Normalization& out) {
  const std::string type = n.value("type", "");
  if (type == "Sequence") {
    for (const auto& part : n.value("normalizers", nlohmann::json::array())) read_normalizer(f, part, out);
  } else if (type == "Precompiled") {
    out.charsmap = base64_decode(n.value("precompiled_charsmap", ""));
  } else if (type == "Replace" && n.value("content", "") == " " && n.contains("pattern") &&
             n["pattern"].value("Regex", "") == " {2,}") {
    out.remove_extra_spaces = true;
  } else if (type != "Strip") {  // spm strips a line's ends when it removes extra spaces: implied above
    unsupported(f, "normalizer '" + type + "'");
  }
}

void read_pre_tokenizer(const TokenizerJson& f, const nlohmann::json& p, Normalization& out) {
  const std::string type = p.value("type", "");
  if (type == "Sequence") {
    for (const auto& part : p.value("pretokenizers", nlohmann::json::array())) read_pre_tokenizer(f, part, out);
  } else if (type == "Metaspace") {
    if (p.value("replacement", "") != "\u2581") unsupported(f, "Metaspace replacement other than U+2581");
    const std::string prepend = p.value("prepend_scheme", p.value("add_prefix_space", true) ? "always" : "never");
    if (prepend == "first") unsupported(f, "Metaspace prepend_scheme 'first'");
    out.dummy_prefix = prepend == "always";
  } else if (type == "WhitespaceSplit") {
    out.split_on_white_space = true;
  } else {
    unsupported(f, "pre_tokenizer '" + type + "'");
  }
}

std::string piece_message(const std::string& piece, double score, int type) {
  std::string m;
  put_bytes(m, kPieceText, piece);
  put_float(m, kPieceScore, static_cast<float>(score));
  put_int(m, kPieceType, type);
  return m;
}

// Every [piece, score] of model.vocab, typed: the unk_id's unknown, special added tokens control (never produced
// from text), other added tokens user-defined (matched verbatim, as HF matches them).
void put_pieces(const TokenizerJson& f, int64_t unk_id, std::string& proto) {
  std::set<int64_t> special, added;
  for (const auto& t : f.added_tokens) (t.special ? special : added).insert(t.id);
  const auto& vocab = f.model["vocab"];
  for (size_t i = 0; i < vocab.size(); ++i) {
    const auto id = static_cast<int64_t>(i);
    const int type = id == unk_id ? kUnknown : special.count(id) ? kControl : added.count(id) ? kUserDefined : kNormal;
    put_bytes(proto, kModelPieces, piece_message(vocab[i][0].get<std::string>(), vocab[i][1].get<double>(), type));
  }
}

std::string trainer_spec(int64_t pieces, int64_t unk_id) {
  std::string trainer;
  put_int(trainer, kTrainerModelType, kUnigram);
  put_int(trainer, kTrainerVocabSize, pieces);
  put_int(trainer, kTrainerUnkId, unk_id);
  for (int field : {kTrainerBosId, kTrainerEosId, kTrainerPadId}) put_int(trainer, field, -1);
  return trainer;
}

std::string normalizer_spec(const std::string& charsmap, bool dummy_prefix, bool remove_extra_spaces, bool escape) {
  std::string normalizer;
  put_bytes(normalizer, kNormName, charsmap.empty() ? "identity" : "tokenizer.json");
  put_bytes(normalizer, kNormCharsmap, charsmap);
  put_int(normalizer, kNormDummyPrefix, dummy_prefix);
  put_int(normalizer, kNormRemoveSpaces, remove_extra_spaces);
  put_int(normalizer, kNormEscapeSpaces, escape);
  return normalizer;
}

// HF normalizes the whole text before its pre-tokenizer splits it. A model of <unk> and one piece runs the
// normalizer alone: every piece it returns, known or not, is a stretch of the normalized text, in order.
// (sentencepiece refuses a model without a normal piece.)
std::string normalizing_proto(const Normalization& norm) {
  std::string proto;
  put_bytes(proto, kModelPieces, piece_message("<unk>", 0.0, kUnknown));
  put_bytes(proto, kModelPieces, piece_message("a", 0.0, kNormal));
  put_bytes(proto, kModelTrainerSpec, trainer_spec(2, 0));
  put_bytes(proto, kModelNormalizerSpec, normalizer_spec(norm.charsmap, false, norm.remove_extra_spaces, false));
  return proto;
}

}  // namespace

SentencePieceFromJson sentencepiece_from_json(const TokenizerJson& f) {
  if (f.model_type != "Unigram") unsupported(f, "model '" + f.model_type + "'");
  if (f.model.value("byte_fallback", false)) unsupported(f, "byte_fallback");
  Normalization norm;
  if (!f.normalizer.is_null()) read_normalizer(f, f.normalizer, norm);
  if (!f.pre_tokenizer.is_null()) read_pre_tokenizer(f, f.pre_tokenizer, norm);
  const auto pieces = static_cast<int64_t>(f.model["vocab"].size());
  const auto unk = f.model.find("unk_id");
  const int64_t unk_id = unk != f.model.end() && unk->is_number_integer() ? unk->get<int64_t>() : -1;
  if (unk_id < 0 || unk_id >= pieces) unsupported(f, "a Unigram model without a valid unk_id");  // spm needs one
  SentencePieceFromJson out;
  put_pieces(f, unk_id, out.model_proto);
  put_bytes(out.model_proto, kModelTrainerSpec, trainer_spec(pieces, unk_id));
  put_bytes(out.model_proto, kModelNormalizerSpec, normalizer_spec("", norm.dummy_prefix, false, true));
  if (!norm.charsmap.empty() || norm.remove_extra_spaces) out.normalizer_proto = normalizing_proto(norm);
  out.split_on_white_space = norm.split_on_white_space;
  return out;
}

}  // namespace tune
