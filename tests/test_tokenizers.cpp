// Tokenizer tests: id-for-id parity of WordPiece, byte-level BPE and SentencePiece with the Python references
// (tests/reference/tokenize_reference.py) on real corpus sentences and hard cases, and the factory's choices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>

#include "cli_run.h"
#include "data/bpe_tokenizer.h"
#include "data/sentencepiece_tokenizer.h"
#include "data/token_layout.h"
#include "data/tokenizer.h"
#include "data/wordpiece_tokenizer.h"
#include "test_helpers.h"

namespace tune {
namespace {
namespace fs = std::filesystem;
using IdLists = std::vector<std::vector<int64_t>>;

const fs::path kShared = fs::path(TUNE_SOURCE_DIR) / ".." / "shared" / "data";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("test data '" + path.string() + "' is missing (CI puts shared/ beside the repo)");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Texts that stress each tokenizer's normalisation and pre-tokenisation.
const std::vector<std::string> kHardCases = {
    "Héllo wörld! Ça va? naïve café résumé Ångström",
    "東京は日本の首都です。北京欢迎你",
    "I'm sure you've heard they'll say it's what we'd do, isn't it? I'M SHOUTING",
    "'s 't 're 've 'm 'll 'd",
    "emoji 😀🎉👍🏽 and family 👨‍👩‍👧 and 🥺",
    "multiple    spaces   here\t\ttabs",
    "line one\nline two\n\n\nline five\r\nwindows",
    "punctuation!!!??? ... --- ((nested)) [brackets] {braces} <tags> $100.00 50% a&b @user #tag",
    "numbers 1234567890 3.14159 1,000,000 2nd 3rd",
    "Ünïcödé ÀÉÎÕÜ İstanbul ß straße ﬁ ligature",
    "Greek Ελληνικά and Russian Русский язык, Arabic العربية, Hebrew עברית",
    "Korean 한국어 and Thai ภาษาไทย and Hindi हिन्दी",
    "control\u0001chars\u0007and zero\u200bwidth\u200djoiner and soft\u00adhyphen",
    "  leading and trailing spaces  ",
    " ",
    std::string(150, 'a') + " short",
    "supercalifragilisticexpialidocious antidisestablishmentarianism unaffable tokenization",
    "’curly quotes‘ “double” — em dash – en dash … ellipsis",
    "non\u00a0breaking\u2003em space\u3000ideographic",
    "fullwidth ＡＢＣ１２３ and math 𝐀𝐁𝐂 ∑∫√ ½",
    "Mixed CASE WoRdS and McDonald's O'Neill",
    "tabs\tand\u000bvertical\u000cform feed\u0085next line\u2028line sep",
    "http://example.com/path?q=1&r=2 user@example.com",
    "\u00e9 vs e\u0301 (composed vs decomposed)",
    "ｶﾀｶﾅ half-width katakana and カタカナ",
    "special tokens [CLS] a [MASK] b[SEP]c [mask] [UNK][PAD] <|endoftext|>text<|endoftext|> <s> </s>x a<mask>b <pad>",
};

// `count` sentences spread evenly over the text (split after . ! ? and a space; newlines kept inside).
std::vector<std::string> sample_sentences(const std::string& text, size_t count) {
  std::vector<std::string> all;
  size_t start = 0;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if ((text[i] == '.' || text[i] == '!' || text[i] == '?') && (text[i + 1] == ' ' || text[i + 1] == '\n')) {
      if (i + 1 - start < 2000) all.push_back(text.substr(start, i + 1 - start));
      start = i + 2;
    }
  }
  std::vector<std::string> picked;
  for (size_t k = 0; k < count && k < all.size(); ++k) picked.push_back(all[k * all.size() / count]);
  return picked;
}

// Corpus sentences, the hard cases, and a ~200 KB chunk of each corpus as one text.
std::vector<std::string> parity_texts() {
  std::vector<std::string> texts = kHardCases;
  for (const char* name : {"moby-dick.txt", "sotu.txt"}) {
    const std::string text = read_text(kShared / "corpus" / name);
    for (auto& s : sample_sentences(text, 200)) texts.push_back(std::move(s));
    texts.push_back(text.substr(0, text.find('\n', 200000)));
  }
  return texts;
}

// Runs tokenize_reference.py with the texts and returns its ids.
IdLists reference_ids(const std::string& args_before_texts, const std::vector<std::string>& texts) {
  const fs::path dir = testing::temp_dir("tokref");
  testing::write_file(dir / "texts.json", nlohmann::json(texts).dump());
  const std::string cmd = "python3 " + std::string(TUNE_SOURCE_DIR) + "/tests/reference/tokenize_reference.py " +
                          args_before_texts + " '" + (dir / "texts.json").string() + "'";
  const testing::CliRun run = testing::run_command(cmd);
  if (run.exit_code != 0) throw std::runtime_error("reference failed: " + cmd);
  fs::remove_all(dir);
  return nlohmann::json::parse(run.output).get<IdLists>();
}

// Exact id equality on every text; prints the count and the first mismatches for the record.
void expect_parity(const std::string& label, const Tokenizer& tokenizer, const std::vector<std::string>& texts,
                   const IdLists& expected) {
  ASSERT_EQ(expected.size(), texts.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    if (tokenizer.encode(texts[i]) == expected[i]) continue;
    if (++mismatches <= 5)
      ADD_FAILURE() << label << " differs on text " << i << ": '" << texts[i].substr(0, 300) << "'";
  }
  std::cout << "[parity] " << label << ": " << texts.size() << " texts, " << mismatches << " mismatches\n";
  EXPECT_EQ(mismatches, 0u);
}

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

ModelConfig model_of(const std::string& family, int vocab_size, const std::string& name = "m") {
  ModelConfig model;
  model.name = name;
  model.family = family;
  model.vocab_size = vocab_size;
  return model;
}

TEST(TokenizerParity, WordPieceUncasedMatchesHuggingFace) {
  const fs::path vocab = kShared / "tokenizers" / "bert-base-uncased" / "vocab.txt";
  const auto texts = parity_texts();
  const WordPieceTokenizer ours(vocab.string(), WordPieceOptions{true, true});
  expect_parity("wordpiece uncased", ours, texts, reference_ids("wordpiece " + quoted(vocab) + " 1", texts));
}

TEST(TokenizerParity, WordPieceCasedModeMatchesHuggingFace) {
  const fs::path vocab = kShared / "tokenizers" / "bert-base-uncased" / "vocab.txt";
  const auto texts = parity_texts();
  const WordPieceTokenizer ours(vocab.string(), WordPieceOptions{false, false});
  expect_parity("wordpiece cased mode", ours, texts, reference_ids("wordpiece " + quoted(vocab) + " 0", texts));
}

TEST(TokenizerParity, Gpt2BpeMatchesHuggingFace) {
  const fs::path dir = kShared / "tokenizers" / "gpt2";
  const auto texts = parity_texts();
  const BpeTokenizer ours((dir / "vocab.json").string(), (dir / "merges.txt").string(), {"<|endoftext|>"});
  const auto expected = reference_ids("bpe " + quoted(dir), texts);
  expect_parity("gpt2 byte-level bpe", ours, texts, expected);
}

// RoBERTa's files are GPT-2's merges and vocabulary plus its five special tokens: built from GPT-2's here.
TEST(TokenizerParity, RobertaBpeWithSpecialTokensMatchesHuggingFace) {
  const fs::path gpt2 = kShared / "tokenizers" / "gpt2";
  const fs::path dir = testing::temp_dir("roberta");
  auto vocab = nlohmann::json::parse(read_text(gpt2 / "vocab.json"));
  auto next_id = static_cast<int64_t>(vocab.size());
  for (const char* token : {"<s>", "<pad>", "</s>", "<unk>", "<mask>"}) vocab[token] = next_id++;
  testing::write_file(dir / "vocab.json", vocab.dump());
  fs::copy_file(gpt2 / "merges.txt", dir / "merges.txt");
  const auto texts = parity_texts();
  const auto ours = make_tokenizer(model_of("roberta", 50262), dir.string());
  expect_parity("roberta byte-level bpe", *ours, texts, reference_ids("roberta " + quoted(dir), texts));
}

// A unigram SentencePiece model trained (seed 0) on Moby Dick by the python package, shared by the tests below.
class SentencePieceParity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // One folder per process: ctest runs each test as its own process, possibly in parallel.
    const std::string name = "tune-test-spm-model-" + std::to_string(std::random_device{}());
    dir_ = new fs::path(fs::temp_directory_path() / name);
    fs::create_directories(*dir_);
    const std::string cmd = "python3 " + std::string(TUNE_SOURCE_DIR) + "/tests/reference/tokenize_reference.py " +
                            "spm-train " + quoted(kShared / "corpus" / "moby-dick.txt") + " 2000 0 " +
                            quoted(model()) + " > /dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static fs::path model() { return *dir_ / "spm.model"; }
  static fs::path* dir_;
};
fs::path* SentencePieceParity::dir_ = nullptr;

TEST_F(SentencePieceParity, T5IdsMatchSentencePiecePackage) {
  const auto texts = parity_texts();
  const SentencePieceTokenizer ours(model().string(), SentencePieceIds::as_is);
  expect_parity("sentencepiece (t5 ids)", ours, texts, reference_ids("spm " + quoted(model()), texts));
}

// transformers converts the .model to its own pipeline, which turns U+0085 (NEL) into a space where
// sentencepiece keeps it as a character; we run sentencepiece itself (T5's test covers that text).
std::vector<std::string> without_nel(std::vector<std::string> texts) {
  texts.erase(std::remove_if(texts.begin(), texts.end(),
                             [](const std::string& t) { return t.find("\u0085") != std::string::npos; }),
              texts.end());
  return texts;
}

TEST_F(SentencePieceParity, XlmRobertaIdsMatchTransformers) {
  const auto texts = without_nel(parity_texts());
  const SentencePieceTokenizer ours(model().string(), SentencePieceIds::fairseq);
  expect_parity("sentencepiece (xlm-r fairseq ids)", ours, texts, reference_ids("xlmr " + quoted(model()), texts));
}

// A small vocabulary where greedy longest-match-first and the [UNK] rules are visible.
fs::path tiny_wordpiece_dir(const std::string& folder_name) {
  const fs::path dir = testing::temp_dir(folder_name);
  testing::write_file(dir / "vocab.txt", "[PAD]\n[UNK]\nun\nunaff\n##aff\n##able\n##a\n##b\nhello\n,\nhél\n");
  return dir;
}

TEST(WordPiece, GreedyLongestMatchAndUnknownWords) {
  const fs::path dir = tiny_wordpiece_dir("wp");
  const WordPieceTokenizer cased((dir / "vocab.txt").string(), WordPieceOptions{});
  // unaffable -> unaff ##able (longest first, not un ##aff ##able); "unx" has no full cover -> [UNK].
  EXPECT_EQ(cased.encode("unaffable, hello unx"), (std::vector<int64_t>{3, 5, 9, 8, 1}));
  EXPECT_EQ(cased.encode("Hello"), (std::vector<int64_t>{1}));  // cased: no "Hello"
  EXPECT_EQ(cased.encode("hél"), (std::vector<int64_t>{10}));
  const WordPieceTokenizer uncased((dir / "vocab.txt").string(), WordPieceOptions{true, true});
  EXPECT_EQ(uncased.encode("HELLO HÉL"), (std::vector<int64_t>{8, 1}));  // accents stripped: "hel" is unknown
  WordPieceOptions short_words;
  short_words.max_chars_per_word = 4;
  const WordPieceTokenizer capped((dir / "vocab.txt").string(), short_words);
  EXPECT_EQ(capped.encode("hello un"), (std::vector<int64_t>{1, 2}));
}

TEST(WordPiece, VocabularyWithoutUnknownTokenIsRejected) {
  const fs::path dir = testing::temp_dir("wp-nounk");
  testing::write_file(dir / "vocab.txt", "hello\n");
  EXPECT_THROW(WordPieceTokenizer((dir / "vocab.txt").string(), WordPieceOptions{}), std::invalid_argument);
}

TEST(MakeTokenizer, LowercaseFromConfigOrModelName) {
  const fs::path cased_dir = tiny_wordpiece_dir("cased");
  EXPECT_EQ(make_tokenizer(model_of("bert", 100), cased_dir.string())->encode("HELLO"), (std::vector<int64_t>{1}));
  EXPECT_EQ(make_tokenizer(model_of("bert", 100, "bert-uncased"), cased_dir.string())->encode("HELLO"),
            (std::vector<int64_t>{8}));
  testing::write_file(cased_dir / "tokenizer_config.json", R"({"do_lower_case": true})");
  EXPECT_EQ(make_tokenizer(model_of("distilbert", 100), cased_dir.string())->encode("HELLO"),
            (std::vector<int64_t>{8}));
  testing::write_file(cased_dir / "tokenizer_config.json", R"({"do_lower_case": "yes"})");
  EXPECT_THROW(make_tokenizer(model_of("bert", 100), cased_dir.string()), std::invalid_argument);
}

TEST(MakeTokenizer, PicksByFamilyAndFiles) {
  const fs::path gpt2 = kShared / "tokenizers" / "gpt2";
  EXPECT_NE(make_tokenizer(model_of("gpt2", 50257), gpt2.string())->describe().find("byte-level BPE"),
            std::string::npos);
  EXPECT_NE(make_tokenizer(model_of("roberta", 50265), gpt2.string())->describe().find("byte-level BPE"),
            std::string::npos);
  EXPECT_NE(make_tokenizer(model_of("bert", 30522), "")->describe().find("fallback"), std::string::npos);
}

TEST(MakeTokenizer, ErrorsNameTheFolderAndExpectedFiles) {
  const fs::path empty = testing::temp_dir("empty");
  try {
    make_tokenizer(model_of("t5", 32128), empty.string());
    FAIL() << "an empty folder was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(empty.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("spiece.model"), std::string::npos) << e.what();
  }
  const fs::path gpt2 = kShared / "tokenizers" / "gpt2";
  EXPECT_THROW(make_tokenizer(model_of("bert", 30522), gpt2.string()), std::invalid_argument);  // no vocab.txt
  EXPECT_THROW(make_tokenizer(model_of("gpt2", 1000), gpt2.string()), std::invalid_argument);   // ids too large
  EXPECT_THROW(make_tokenizer(model_of("gpt2", 50257), (empty / "missing").string()), std::invalid_argument);
}

// Writes tokenizer.json with transformers' fast tokenizer (tokenize_reference.py save-json); the folder.
fs::path tokenizer_json_folder(const std::string& kind, const fs::path& source) {
  const fs::path dir = testing::temp_dir("tokjson-" + kind);
  const std::string cmd = "python3 " + std::string(TUNE_SOURCE_DIR) + "/tests/reference/tokenize_reference.py " +
                          "save-json " + kind + " " + quoted(source) + " " + quoted(dir) + " > /dev/null";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("reference failed: " + cmd);
  return dir;
}

// tokenizer.json alone (no vocab.txt / vocab.json beside it): make_tokenizer reads it, id for id with HF tokenizers.
TEST(TokenizerJsonParity, WordPieceAndByteLevelBpeMatchHuggingFace) {
  const auto texts = parity_texts();
  const fs::path bert = tokenizer_json_folder("bert-uncased", kShared / "tokenizers" / "bert-base-uncased" / "vocab.txt");
  const auto wordpiece = make_tokenizer(model_of("bert", 30522), bert.string());
  EXPECT_NE(wordpiece->describe().find("tokenizer.json"), std::string::npos) << wordpiece->describe();
  // The whole vocabulary was written (transformers 5 built a 5-token one from vocab_file=, and every id matched
  // as [UNK]): words get their own ids.
  EXPECT_EQ(wordpiece->encode("hello world"), (std::vector<int64_t>{7592, 2088}));
  expect_parity("tokenizer.json wordpiece", *wordpiece, texts,
                reference_ids("json " + quoted(bert / "tokenizer.json"), texts));
  const fs::path gpt2 = tokenizer_json_folder("gpt2", kShared / "tokenizers" / "gpt2");
  const auto bpe = make_tokenizer(model_of("gpt2", 50257), gpt2.string());
  expect_parity("tokenizer.json byte-level bpe", *bpe, texts, reference_ids("json " + quoted(gpt2 / "tokenizer.json"), texts));
}

// A Unigram tokenizer.json (transformers' conversion of a SentencePiece model: Precompiled normalizer,
// WhitespaceSplit + Metaspace) alone in its folder, id for id with HF tokenizers, as T5 and XLM-R convert it.
TEST_F(SentencePieceParity, UnigramTokenizerJsonAloneMatchesHuggingFace) {
  const auto texts = parity_texts();
  for (const std::string kind : {"t5", "xlmr"}) {
    const fs::path dir = tokenizer_json_folder(kind, model());
    fs::remove(dir / "spiece.model");
    const auto ours = make_tokenizer(model_of(kind == "t5" ? "t5" : "roberta", 2110), dir.string());
    EXPECT_NE(ours->describe().find("tokenizer.json"), std::string::npos) << ours->describe();
    expect_parity("tokenizer.json unigram (" + kind + ")", *ours, texts,
                  reference_ids("json " + quoted(dir / "tokenizer.json"), texts));
  }
}

// T5's roles (decoder start <pad>, </s>, <extra_id_0>) from its tokenizer.json alone, at the ids transformers gave them.
TEST_F(SentencePieceParity, T5TokenLayoutFromTokenizerJsonAlone) {
  const fs::path dir = tokenizer_json_folder("t5", model());
  fs::remove(dir / "spiece.model");
  std::map<std::string, int> added;
  const auto file = nlohmann::json::parse(read_text(dir / "tokenizer.json"));  // kept: range-for over a temporary's member dangles
  for (const auto& t : file["added_tokens"])
    added[t["content"].get<std::string>()] = t["id"].get<int>();
  const auto layout = token_layout_from_files("t5", dir.string());
  ASSERT_TRUE(layout.has_value());
  EXPECT_EQ(layout->source, (dir / "tokenizer.json").string());
  EXPECT_EQ(layout->cls, added.at("<pad>"));
  EXPECT_EQ(layout->sep, added.at("</s>"));
  EXPECT_EQ(layout->sentinel_first, added.at("<extra_id_0>"));
  EXPECT_LT(layout->first_word, layout->last_word);
}

TEST(TokenizerJson, PartsTuneDoesNotImplementAreNamed) {
  const fs::path dir = testing::temp_dir("tokjson-bad");
  const auto error_for = [&](const std::string& json) {
    testing::write_file(dir / "tokenizer.json", json);
    return testing::error_of([&] { make_tokenizer(model_of("bert", 100), dir.string()); });
  };
  const std::string vocab = R"("vocab": {"[UNK]": 0, "a": 1})";
  EXPECT_NE(error_for(R"({"model": {"type": "WordLevel", )" + vocab + "}}").find("model 'WordLevel'"), std::string::npos);
  EXPECT_NE(error_for(R"({"normalizer": {"type": "NFKC"}, "pre_tokenizer": {"type": "BertPreTokenizer"},
                          "model": {"type": "WordPiece", )" + vocab + "}}")
                .find("normalizer 'NFKC'"),
            std::string::npos);
  const std::string unigram = R"("model": {"type": "Unigram", "vocab": [["<unk>", 0.0], ["a", -1.0]])";
  EXPECT_NE(error_for("{" + unigram + R"(, "unk_id": 0}, "normalizer": {"type": "Lowercase"}})").find("normalizer 'Lowercase'"),
            std::string::npos);
  EXPECT_NE(error_for("{" + unigram + "}}").find("without a valid unk_id"), std::string::npos);
  EXPECT_NE(error_for(R"({"model": {"type": "Unigram", "vocab": [["a", "high"]]}})").find("model.vocab[0] is not [piece, score]"),
            std::string::npos);
  EXPECT_NE(error_for("{\"model\": ").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_for(R"({"version": "1.0"})").find("no \"model\" object"), std::string::npos);
  // A fuzzer's find: a list where HF writes a type name escaped as nlohmann's type_error and ended the process.
  EXPECT_NE(error_for("{" + unigram + R"(, "unk_id": 0}, "normalizer": {"type": [{"type": "Metaspace"}]}})")
                .find("does not have HF's tokenizer.json layout"),
            std::string::npos);
}

// A fuzzer's find (CI, 2026-12-04): one id of 444442222222 asked for a listing of that many tokens and ASan
// aborted on the allocation. Ids far past the number of tokens are a user error naming the file.
// The error of reading a BERT layout from a folder whose tokenizer.json is `json`; it must name that file.
std::string tokenizer_json_error(const std::string& folder, const std::string& json) {
  const fs::path dir = testing::temp_dir(folder);
  testing::write_file(dir / "tokenizer.json", json);
  const std::string error = testing::error_of([&] { token_layout_from_files("bert", dir.string()); });
  EXPECT_NE(error.find("tokenizer file '" + (dir / "tokenizer.json").string() + "'"), std::string::npos) << error;
  return error;
}

TEST(TokenizerJson, SparseIdsAreAUserErrorNotAHugeAllocation) {
  const std::string error = tokenizer_json_error("tokjson-sparse",
      R"({"added_tokens": [{"id": 444442222222, "content": "<x>", "special": true}],
      "model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "[MASK]": 3}}})");
  EXPECT_NE(error.find("token ids run to 444442222222 for 5 tokens"), std::string::npos) << error;
}

// Another (2026-12-06, scripts/sanitize): an added token with id -5 indexed below the listing (UBSan). A negative id
// is a user error naming the file and the token, in added_tokens and in the model's vocab alike.
TEST(TokenizerJson, NegativeIdsAreAUserError) {
  const std::string error = tokenizer_json_error("tokjson-negative",
      R"({"added_tokens": [{"id": -5, "content": "<pad>", "special": true}],
      "model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "[MASK]": 3}}})");
  EXPECT_NE(error.find("added token \"<pad>\" has id -5 (expected ids 0 and up)"), std::string::npos) << error;
  const std::string vocab_error = tokenizer_json_error("tokjson-negative-vocab", R"({"model": {"type": "WordPiece",
      "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "[MASK]": -3}}})");
  EXPECT_NE(vocab_error.find("-3"), std::string::npos) << vocab_error;
}

TEST(BpeTokenizer, InvalidUtf8IsAUserError) {
  const fs::path gpt2 = kShared / "tokenizers" / "gpt2";
  const BpeTokenizer bpe((gpt2 / "vocab.json").string(), (gpt2 / "merges.txt").string(), {});
  EXPECT_THROW(bpe.encode("abc \xff\xfe def"), std::invalid_argument);
}

}  // namespace
}  // namespace tune
