// Hugging Face folders and the HF cache (src/hub): config.json read as transformers reads it, the errors a user
// sees for configs tune cannot train, the token layout from tokenizer files, and the YAML `models --describe` writes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "data/token_layout.h"
#include "hub/hf_cache.h"
#include "hub/hf_model_types.h"
#include "hub/model_source.h"
#include "hub/model_yaml.h"
#include "common/model_config.h"
#include "test_helpers.h"

using namespace tune;
using tune::testing::error_of;
using tune::testing::temp_dir;
using tune::testing::write_file;
namespace fs = std::filesystem;

namespace {

const fs::path kShared = fs::path(TUNE_SOURCE_DIR) / ".." / "shared" / "data";

// A small BERT config.json as save_pretrained writes it (only some keys: the rest are transformers' defaults).
nlohmann::json small_bert_config() {
  return {{"architectures", {"BertForMaskedLM"}}, {"model_type", "bert"}, {"vocab_size", 30522},
          {"hidden_size", 64}, {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"intermediate_size", 128},
          {"transformers_version", "4.46.0"}, {"torch_dtype", "float32"}};
}

fs::path folder_with(const nlohmann::json& config, const std::string& name = "model") {
  const fs::path dir = temp_dir("hub") / name;
  write_file(dir / "config.json", config.dump(2));
  return dir;
}

// Sets an environment variable for one test's scope.
struct ScopedEnv {
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { had_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace

TEST(HfFolder, ConfigJsonMapsToTheFamilyWithTransformersDefaults) {
  const ModelSource s = resolve_model_source(folder_with(small_bert_config(), "my-bert").string());
  const ModelConfig& c = s.config;
  EXPECT_EQ(c.name, "my-bert");
  EXPECT_EQ(c.family, "bert");
  EXPECT_EQ(c.hf_class, "BertForMaskedLM");
  EXPECT_EQ(c.task, "masked_lm");
  EXPECT_EQ(c.hidden_size, 64);
  EXPECT_EQ(c.num_hidden_layers, 2);
  EXPECT_EQ(c.max_position_embeddings, 512);  // BertConfig's defaults for the keys the file leaves out
  EXPECT_DOUBLE_EQ(c.layer_norm_eps, 1e-12);
  EXPECT_EQ(c.type_vocab_size, 2);
  EXPECT_EQ(c.hidden_act, "gelu");
  EXPECT_FALSE(c.hf.contains("transformers_version"));  // bookkeeping stays out of the config (and its hash)
  EXPECT_TRUE(s.weights.empty());
  EXPECT_TRUE(s.tokenizer_dir.empty());
  EXPECT_EQ(c.cls_token_id, 101);  // BERT's usual layout without tokenizer files
  EXPECT_EQ(c.first_word_token_id, 999);
}

TEST(HfFolder, EachModelTypeMapsToItsFamilyAndHead) {
  const std::vector<std::tuple<std::string, std::string, std::string, std::string>> cases = {
      {"roberta", "RobertaForMaskedLM", "roberta", "RobertaForMaskedLM"},
      {"xlm-roberta", "XLMRobertaForMaskedLM", "roberta", "XLMRobertaForMaskedLM"},
      {"distilbert", "DistilBertForSequenceClassification", "distilbert", "DistilBertForSequenceClassification"},
      {"gpt2", "GPT2LMHeadModel", "gpt2", "GPT2LMHeadModel"},
      {"t5", "T5ForConditionalGeneration", "t5", "T5ForConditionalGeneration"},
      {"bert", "BertForPreTraining", "bert", "BertForMaskedLM"},
      {"roberta", "RobertaModel", "roberta", "RobertaForMaskedLM"},  // a base model: the family's own task
  };
  for (const auto& [type, architecture, family, hf_class] : cases) {
    const ModelSource s = resolve_model_source(folder_with({{"model_type", type}, {"architectures", {architecture}}}).string());
    EXPECT_EQ(s.config.family, family) << architecture;
    EXPECT_EQ(s.config.hf_class, hf_class) << architecture;
  }
}

TEST(HfFolder, ABaseModelSaysItsHeadIsInitialised) {
  auto config = small_bert_config();
  config["architectures"] = {"BertModel"};
  const ModelSource s = resolve_model_source(folder_with(config).string());
  ASSERT_FALSE(s.notes.empty());
  EXPECT_NE(s.notes[0].find("BertModel has no head tune trains"), std::string::npos) << s.notes[0];
}

TEST(HfFolder, TaskPicksTheClassificationHead) {
  ModelSourceOptions options;
  options.task = "classification";
  auto config = small_bert_config();
  config["id2label"] = {{"0", "a"}, {"1", "b"}, {"2", "c"}};
  const ModelSource s = resolve_model_source(folder_with(config).string(), options);
  EXPECT_EQ(s.config.hf_class, "BertForSequenceClassification");
  EXPECT_EQ(s.config.task, "sequence_classification");
  EXPECT_EQ(s.config.num_labels, 3);  // from id2label, as transformers counts them
  const std::string msg = error_of([&] {
    resolve_model_source(folder_with({{"model_type", "gpt2"}}).string(), options);
  });
  EXPECT_NE(msg.find("GPT2ForSequenceClassification, which tune does not implement"), std::string::npos) << msg;
  EXPECT_NE(msg.find("GPT2LMHeadModel"), std::string::npos) << msg;
  options.task = "summarize";
  EXPECT_NE(error_of([&] { resolve_model_source(folder_with(small_bert_config()).string(), options); })
                .find("--task 'summarize': expected one of"),
            std::string::npos);
}

TEST(HfFolder, AnUnknownArchitectureIsNamedWithTheSupportedOnes) {
  const auto dir = folder_with({{"model_type", "llama"}, {"architectures", {"LlamaForCausalLM"}}});
  const std::string msg = error_of([&] { resolve_model_source(dir.string()); });
  EXPECT_NE(msg.find((dir / "config.json").string()), std::string::npos) << msg;
  EXPECT_NE(msg.find("architecture 'LlamaForCausalLM' (model_type 'llama') has no family in tune"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("bert, roberta, xlm-roberta, distilbert, gpt2, t5"), std::string::npos) << msg;
}

TEST(HfFolder, KeysThatChangeTheMathAreRefusedNotIgnored) {
  const std::vector<std::pair<std::string, nlohmann::json>> refused = {
      {"position_embedding_type", "relative_key"}, {"tie_word_embeddings", false}, {"is_decoder", true},
      {"add_cross_attention", true}, {"quantization_config", {{"load_in_8bit", true}}}};
  for (const auto& [key, value] : refused) {
    auto config = small_bert_config();
    config[key] = value;
    const std::string msg = error_of([&] { resolve_model_source(folder_with(config).string()); });
    EXPECT_NE(msg.find("key '" + key + "'"), std::string::npos) << key << ": " << msg;
    EXPECT_NE(msg.find("config.json"), std::string::npos) << msg;
  }
  auto gpt2 = nlohmann::json{{"model_type", "gpt2"}, {"reorder_and_upcast_attn", true}};
  EXPECT_NE(error_of([&] { resolve_model_source(folder_with(gpt2).string()); }).find("reorder_and_upcast_attn"),
            std::string::npos);
  auto distil = nlohmann::json{{"model_type", "distilbert"}, {"sinusoidal_pos_embds", true}};
  EXPECT_NE(error_of([&] { resolve_model_source(folder_with(distil).string()); }).find("sinusoidal_pos_embds"),
            std::string::npos);
}

TEST(HfFolder, UnreadKeysAreNamedInANote) {
  auto config = small_bert_config();
  config["rotary_dim"] = 32;
  const ModelSource s = resolve_model_source(folder_with(config).string());
  bool named = false;
  for (const auto& note : s.notes) named |= note.find("does not read") != std::string::npos && note.find("rotary_dim") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST(HfFolder, BadConfigJsonIsAnErrorNamingTheFileAndKey) {
  auto wrong_type = small_bert_config();
  wrong_type["hidden_size"] = "big";
  const std::string type_msg = error_of([&] { resolve_model_source(folder_with(wrong_type).string()); });
  EXPECT_NE(type_msg.find("config.json:"), std::string::npos) << type_msg;
  EXPECT_NE(type_msg.find("key 'hidden_size': expected an integer, got 'big'"), std::string::npos) << type_msg;

  const fs::path truncated = temp_dir("hub") / "truncated";
  write_file(truncated / "config.json", small_bert_config().dump().substr(0, 40));
  EXPECT_NE(error_of([&] { resolve_model_source(truncated.string()); }).find("not valid JSON"), std::string::npos);

  auto no_type = small_bert_config();
  no_type.erase("model_type");
  EXPECT_NE(error_of([&] { resolve_model_source(folder_with(no_type).string()); }).find("key 'model_type'"),
            std::string::npos);

  const fs::path empty = temp_dir("hub");
  EXPECT_NE(error_of([&] { resolve_model_source(empty.string()); }).find("has no config.json"), std::string::npos);
}

TEST(HfFolder, TokenLayoutComesFromTheTokenizerFiles) {
  const auto bert = folder_with(small_bert_config());
  fs::copy_file(kShared / "tokenizers" / "bert-base-uncased" / "vocab.txt", bert / "vocab.txt");
  const ModelSource b = resolve_model_source(bert.string());
  EXPECT_EQ(b.tokenizer_dir, bert.string());
  const ModelConfig tested = resolve_model("bert-base-uncased");  // the pinned YAML's ids, for the same vocab.txt
  EXPECT_EQ(b.config.cls_token_id, tested.cls_token_id);
  EXPECT_EQ(b.config.sep_token_id, tested.sep_token_id);
  EXPECT_EQ(b.config.mask_token_id, tested.mask_token_id);
  EXPECT_EQ(b.config.first_word_token_id, tested.first_word_token_id);

  const auto gpt2 = folder_with({{"model_type", "gpt2"}, {"architectures", {"GPT2LMHeadModel"}}});
  for (const char* file : {"vocab.json", "merges.txt"}) fs::copy_file(kShared / "tokenizers" / "gpt2" / file, gpt2 / file);
  const ModelConfig g = resolve_model_source(gpt2.string()).config;
  const ModelConfig tested_gpt2 = resolve_model("gpt2");
  EXPECT_EQ(g.cls_token_id, tested_gpt2.cls_token_id);
  EXPECT_EQ(g.first_word_token_id, tested_gpt2.first_word_token_id);
  EXPECT_EQ(g.last_word_token_id, tested_gpt2.last_word_token_id);
}

TEST(HfFolder, DescribedYamlLoadsBackToTheSameConfig) {
  const auto dir = folder_with(small_bert_config(), "pin-me");
  fs::copy_file(kShared / "tokenizers" / "bert-base-uncased" / "vocab.txt", dir / "vocab.txt");
  const ModelSource s = resolve_model_source(dir.string());
  const std::string yaml = model_yaml(s.config, s.origin);
  const ModelConfig back = load_model_config(write_file(temp_dir("hub") / "pin-me.yaml", yaml));
  EXPECT_EQ(back.config_hash(), s.config.config_hash()) << yaml;
  EXPECT_EQ(back.first_word_token_id, s.config.first_word_token_id);
  EXPECT_EQ(back.hf_class, "BertForMaskedLM");
}

TEST(HfCache, SnapshotsAreFoundByRefsMainAndServeHubIds) {
  const fs::path cache = temp_dir("hfcache");
  const ScopedEnv env("HF_HUB_CACHE", cache.string());
  EXPECT_EQ(hf_hub_cache_dir(), cache.string());
  const fs::path repo = cache / "models--someorg--tiny-bert";
  write_file(repo / "snapshots" / "old" / "config.json", small_bert_config().dump());
  write_file(repo / "snapshots" / "abc123" / "config.json", small_bert_config().dump());
  write_file(repo / "refs" / "main", "abc123");
  EXPECT_EQ(cached_snapshot("someorg/tiny-bert"), (repo / "snapshots" / "abc123").string());
  EXPECT_FALSE(cached_snapshot("someorg/absent").has_value());
  const ModelSource s = resolve_model_source("someorg/tiny-bert");
  EXPECT_EQ(s.config.name, "someorg/tiny-bert");
  EXPECT_NE(s.origin.find("abc123"), std::string::npos);
  EXPECT_NE(error_of([] { resolve_model_source("someorg/absent"); }).find("does not hold it"), std::string::npos);
}

// A tested model keeps its pinned YAML; the cache gives it pretrained weights and its tokenizer when they fit.
TEST(HfCache, ATestedModelUsesTheCachedWeightsAndTokenizer) {
  const fs::path cache = temp_dir("hfcache");
  const ScopedEnv env("HF_HUB_CACHE", cache.string());
  const ModelSource absent = resolve_model_source("bert-base-uncased");
  EXPECT_TRUE(absent.weights.empty());
  EXPECT_NE(absent.origin.find("not in the HF cache"), std::string::npos);

  const fs::path snapshot = cache / "models--bert-base-uncased" / "snapshots" / "r1";
  nlohmann::json config = {{"model_type", "bert"}, {"architectures", {"BertForMaskedLM"}}, {"vocab_size", 30522}};
  write_file(snapshot / "config.json", config.dump());
  write_file(snapshot / "model.safetensors", "x");  // only its presence is read here
  fs::copy_file(kShared / "tokenizers" / "bert-base-uncased" / "vocab.txt", snapshot / "vocab.txt");
  const ModelSource cached = resolve_model_source("bert-base-uncased");
  EXPECT_EQ(cached.weights, snapshot.string());
  EXPECT_EQ(cached.tokenizer_dir, snapshot.string());
  EXPECT_NE(cached.origin.find("HF cache snapshot"), std::string::npos);
  EXPECT_EQ(cached.config.config_hash(), resolve_model("bert-base-uncased").config_hash());

  ModelSourceOptions off;
  off.use_hf_cache = false;
  EXPECT_TRUE(resolve_model_source("bert-base-uncased", off).weights.empty());

  config["num_hidden_layers"] = 6;  // another checkpoint under the same id: not loaded into the pinned model
  write_file(snapshot / "config.json", config.dump());
  const ModelSource mismatched = resolve_model_source("bert-base-uncased");
  EXPECT_TRUE(mismatched.weights.empty());
  ASSERT_FALSE(mismatched.notes.empty());
  EXPECT_NE(mismatched.notes[0].find("num_hidden_layers 6 instead of 12"), std::string::npos) << mismatched.notes[0];
}

// The defaults tune fills in are transformers' own: each default a config class has, compared with the installed
// transformers (keys it no longer has, such as BERT's position_embedding_type in 5.x, and derived nulls are skipped).
TEST(HfModelTypes, DefaultsAreTransformersOwn) {
  for (const std::string& type : supported_model_types()) {
    const std::string cmd = "python3 -c \"import json, transformers; print(json.dumps(transformers.AutoConfig.for_model('" +
                            type + "').to_dict()))\" 2>/dev/null";
    const auto run = tune::testing::run_command(cmd);
    ASSERT_EQ(run.exit_code, 0) << cmd;
    const auto hf = nlohmann::json::parse(run.output);
    int compared = 0;
    const nlohmann::json defaults = hf_config_defaults(hf_model_type(type, "", "test"));
    for (const auto& [key, value] : defaults.items()) {
      if (value.is_null() || !hf.contains(key)) continue;
      EXPECT_EQ(hf[key], value) << type << ": " << key;
      ++compared;
    }
    EXPECT_GE(compared, 8) << type;
  }
}
