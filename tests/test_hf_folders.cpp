// Hugging Face model folders end to end: transformers' save_pretrained writes a folder (random init, no download)
// for each family, with and without the head, sharded and fp16/bf16 (pytorch_model.bin: refused); tune reads it from its
// config.json and weights alone and must give HF's logits. Bad folders fail before any trial, with the file named.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "hub/model_source.h"
#include "models/hf_weights.h"
#include "models/model_factory.h"
#include "models/safetensors.h"
#include "parity_check.h"
#include "store/database.h"
#include "test_helpers.h"
#include "util/paths.h"

using namespace tune;
using tune::testing::error_of;
using tune::testing::temp_dir;
using tune::testing::write_file;
namespace fs = std::filesystem;

namespace {

// A tested tiny model's YAML with its head (and task) replaced, for the heads no tiny variant pins.
std::string yaml_with_head(const std::string& tiny, const std::string& hf_class, const std::string& task) {
  std::string text = tune::testing::read_file(fs::path(tested_models_dir()) / (tiny + ".yaml"));
  const auto replace_line = [&](const std::string& key, const std::string& value) {
    const auto at = text.find("\n" + key + ":");
    const auto end = text.find('\n', at + 1);
    text.replace(at + 1, end - at - 1, key + ": " + value);
  };
  replace_line("hf_class", hf_class);
  replace_line("task", task);
  return write_file(temp_dir("head") / (tiny + "-" + hf_class + ".yaml"), text);
}

// Runs make_reference.py on `yaml` with `options`; the folder it wrote.
fs::path reference_folder(const std::string& yaml, const std::string& options) {
  const fs::path dir = temp_dir("hf-folder") / "checkpoint";
  const std::string cmd = "python3 " + std::string(TUNE_SOURCE_DIR) + "/tests/reference/make_reference.py '" + yaml +
                          "' '" + dir.string() + "' " + options + " > '" + dir.string() + ".log' 2>&1";
  if (std::system(cmd.c_str()) != 0) ADD_FAILURE() << cmd << "\n" << tune::testing::read_file(dir.string() + ".log");
  return dir;
}

// tune reads the folder as --model DIR would: config.json, then the weights there; logits as HF's.
double folder_logits_diff(const fs::path& dir) {
  const ModelSource source = resolve_model_source(dir.string());
  EXPECT_EQ(source.weights, dir.string());
  TrainableModel ours = build_model_with_weights(source.config, 0, source.weights);
  ours.module->eval();
  const auto ref = read_safetensors((dir / "reference.safetensors").string());
  torch::NoGradGuard no_grad;
  return (ours.logits(tune::testing::reference_batch(ref)) - ref.at("logits")).abs().max().item<double>();
}

std::string tiny_yaml(const std::string& name) { return (fs::path(tested_models_dir()) / (name + ".yaml")).string(); }

class FolderParity : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(FolderParity, SavePretrainedFolderGivesHfLogits) {
  const double diff = folder_logits_diff(reference_folder(tiny_yaml(GetParam()), ""));
  std::printf("folder parity %s: logits max abs diff %.3g\n", GetParam().c_str(), diff);
  EXPECT_LT(diff, 1e-4);
}
INSTANTIATE_TEST_SUITE_P(Tiny, FolderParity, ::testing::ValuesIn(tune::testing::tested_model_names(true)),
                         tune::testing::param_test_name);

TEST(HfFolderWeights, ShardedFp16AndBf16FoldersGiveHfLogits) {
  const std::vector<std::pair<std::string, std::string>> variants = {
      {"bert-tiny", "--max-shard-size 100KB"}, {"t5-tiny", "--max-shard-size 100KB"},
      {"gpt2-tiny", "--save-dtype float16"},   {"roberta-tiny", "--save-dtype bfloat16"}};
  for (const auto& [model, options] : variants) {
    const fs::path dir = reference_folder(tiny_yaml(model), options);
    if (options.find("shard") != std::string::npos)
      EXPECT_TRUE(fs::exists(dir / "model.safetensors.index.json")) << model << ": not sharded";
    const double diff = folder_logits_diff(dir);
    std::printf("folder parity %s %s: logits max abs diff %.3g\n", model.c_str(), options.c_str(), diff);
    EXPECT_LT(diff, 1e-4) << model << " " << options;
  }
}

TEST(HfFolderWeights, ClassificationHeadsGiveHfLogits) {
  const std::vector<std::pair<std::string, std::string>> heads = {
      {"bert-tiny", "BertForSequenceClassification"}, {"roberta-tiny", "RobertaForSequenceClassification"}};
  for (const auto& [tiny, hf_class] : heads) {
    const fs::path dir = reference_folder(yaml_with_head(tiny, hf_class, "sequence_classification"), "");
    const ModelSource source = resolve_model_source(dir.string());
    EXPECT_EQ(source.config.hf_class, hf_class);
    const double diff = folder_logits_diff(dir);
    std::printf("folder parity %s: logits max abs diff %.3g\n", hf_class.c_str(), diff);
    EXPECT_LT(diff, 1e-4) << hf_class;
  }
}

// A base-model folder (BertModel, GPT2Model) loads into the head class: the shared tensors from the checkpoint,
// the head as initialised, and the report names exactly the head's tensors.
TEST(HfFolderWeights, ABaseModelCheckpointLoadsWithItsHeadInitialised) {
  for (const std::string model : {"bert-tiny", "gpt2-tiny"}) {
    const fs::path full = reference_folder(tiny_yaml(model), "");
    const fs::path base = reference_folder(tiny_yaml(model), "--base-only");
    const ModelSource source = resolve_model_source(base.string());
    auto from_full = build_model_with_weights(resolve_model(model), 0, full.string());
    auto from_base = build_model(source.config, 7);
    const std::string prefix = hf_base_prefix(source.config.family);
    const auto report = load_hf_weights(*from_base.module, base.string(), from_base.ignored_checkpoint_suffixes, prefix);
    const auto fresh = build_model(source.config, 7).module->named_parameters();
    for (const auto& p : from_base.module->named_parameters()) {
      const bool head = std::find(report.initialised.begin(), report.initialised.end(), p.key()) != report.initialised.end();
      if (head) EXPECT_TRUE(torch::equal(p.value(), fresh[p.key()])) << model << " " << p.key();
      else EXPECT_TRUE(torch::equal(p.value(), from_full.module->named_parameters()[p.key()])) << model << " " << p.key();
      EXPECT_EQ(head, p.key().rfind(prefix + ".", 0) != 0) << model << " " << p.key();
    }
    if (model == "bert-tiny") EXPECT_FALSE(report.initialised.empty());  // cls.predictions.*; GPT-2's head is tied
  }
}

// A masked-LM folder (BertForMaskedLM saves its BertModel without the pooler) fine-tunes as a classifier, as
// from_pretrained allows: the pooler and the classifier keep their initialisation and are reported; every other
// tensor comes from the checkpoint (it threw "missing tensor 'bert.pooler.dense.weight'" before).
TEST(HfFolderWeights, AMaskedLmCheckpointLoadsAsAClassifierWithItsPoolerInitialised) {
  const fs::path dir = reference_folder(tiny_yaml("bert-tiny"), "");
  ModelSourceOptions options;
  options.task = "classification";
  const ModelSource source = resolve_model_source(dir.string(), options);
  ASSERT_EQ(source.config.hf_class, "BertForSequenceClassification");
  auto classifier = build_model(source.config, 7);
  const auto report = load_hf_weights(*classifier.module, dir.string(), classifier.ignored_checkpoint_suffixes, "bert");
  std::vector<std::string> initialised = report.initialised;
  std::sort(initialised.begin(), initialised.end());
  EXPECT_EQ(initialised, (std::vector<std::string>{"bert.pooler.dense.bias", "bert.pooler.dense.weight",
                                                   "classifier.bias", "classifier.weight"}));
  const auto stored = read_checkpoint(dir.string());
  const auto params = classifier.module->named_parameters();
  EXPECT_TRUE(torch::equal(params["bert.embeddings.word_embeddings.weight"],
                           stored.at("bert.embeddings.word_embeddings.weight")));
}

// The HF cache's layout: blobs named by hash, a snapshot of symlinks to them, refs/main naming the snapshot.
TEST(HfFolderWeights, AModelInTheHfCacheLayoutLoadsByItsHubId) {
  const fs::path made = reference_folder(tiny_yaml("roberta-tiny"), "");
  const fs::path cache = temp_dir("hf-cache");
  const fs::path repo = cache / "models--some-org--roberta-tiny";
  fs::create_directories(repo / "blobs");
  fs::create_directories(repo / "snapshots" / "0123abc");
  int blob = 0;
  for (const auto& entry : fs::directory_iterator(made)) {
    const fs::path target = repo / "blobs" / ("blob" + std::to_string(blob++));
    fs::copy_file(entry.path(), target);
    fs::create_symlink(target, repo / "snapshots" / "0123abc" / entry.path().filename());
  }
  write_file(repo / "refs" / "main", "0123abc\n");
  setenv("HF_HUB_CACHE", cache.string().c_str(), 1);
  const ModelSource source = resolve_model_source("some-org/roberta-tiny");
  unsetenv("HF_HUB_CACHE");
  EXPECT_EQ(source.config.name, "some-org/roberta-tiny");
  ASSERT_EQ(source.weights, (repo / "snapshots" / "0123abc").string());
  TrainableModel ours = build_model_with_weights(source.config, 0, source.weights);
  ours.module->eval();
  const auto ref = read_safetensors((made / "reference.safetensors").string());
  torch::NoGradGuard no_grad;
  EXPECT_LT((ours.logits(tune::testing::reference_batch(ref)) - ref.at("logits")).abs().max().item<double>(), 1e-4);
}

// A pickle that would run code when Python's pickle loads it: torch's C++ unpickler refuses it and runs nothing.
TEST(HfFolderWeights, APytorchBinThatWouldRunCodeIsRefused) {
  const fs::path dir = temp_dir("evil");
  const fs::path marker = dir / "ran";
  const std::string script = "import os, torch\n"
                             "class Evil:\n"
                             "    def __reduce__(self):\n"
                             "        return (os.system, ('touch " + marker.string() + "',))\n"
                             "torch.save({'w': Evil()}, '" + (dir / "pytorch_model.bin").string() + "')\n";
  write_file(dir / "make.py", script);
  ASSERT_EQ(std::system(("python3 '" + (dir / "make.py").string() + "'").c_str()), 0);
  ASSERT_FALSE(fs::exists(marker));
  const std::string msg = error_of([&] { read_checkpoint(dir.string()); });
  EXPECT_NE(msg.find("cannot be read by torch's C++ unpickler, which runs no code"), std::string::npos) << msg;
  EXPECT_NE(msg.find("convert it to safetensors"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(marker));
}

// HF's pytorch_model.bin is torch.save of an OrderedDict state dict with metadata, which torch's C++ unpickler does
// not rebuild: tune says so and how to convert it, before any trial (a limit of this build, see docs/models.md).
TEST(HfFolderWeights, AHuggingFaceBinStateDictIsAClearErrorSayingHowToConvert) {
  const fs::path dir = reference_folder(tiny_yaml("distilbert-tiny"), "--bin");
  ASSERT_TRUE(fs::exists(dir / "pytorch_model.bin"));
  const std::string msg = error_of([&] { read_checkpoint(dir.string()); });
  EXPECT_NE(msg.find("pytorch_model.bin"), std::string::npos) << msg;
  EXPECT_NE(msg.find("convert it to safetensors"), std::string::npos) << msg;
}

// Corrupt and truncated weights, a wrong config.json, an unknown architecture and a missing tokenizer: each is a
// clear error naming the file before any trial, exit 2, and the database is never created.
TEST(HfFolderCli, BadFoldersFailBeforeAnyTrialAndWriteNothing) {
  const fs::path good = reference_folder(tiny_yaml("bert-tiny"), "");
  const auto copy_of = [&](const std::string& name) {
    const fs::path dir = temp_dir("bad") / name;
    fs::copy(good, dir, fs::copy_options::recursive);
    return dir;
  };
  const fs::path truncated = copy_of("truncated");
  fs::resize_file(truncated / "model.safetensors", fs::file_size(truncated / "model.safetensors") / 2);
  const fs::path corrupt = copy_of("corrupt");
  write_file(corrupt / "model.safetensors", std::string(64, '\xff'));
  const fs::path wrong_type = copy_of("wrong-type");
  write_file(wrong_type / "config.json", R"({"model_type": "bert", "hidden_size": "wide"})");
  const fs::path unknown = copy_of("unknown");
  write_file(unknown / "config.json", R"({"model_type": "mamba", "architectures": ["MambaForCausalLM"]})");
  const std::vector<std::pair<fs::path, std::string>> cases = {
      {truncated, "model.safetensors"}, {corrupt, "model.safetensors"}, {wrong_type, "'hidden_size'"},
      {unknown, "MambaForCausalLM"}};
  for (const auto& [dir, expected] : cases) {
    const fs::path db = dir.parent_path() / "tune.db";
    const auto run = tune::testing::tune_cli("--model '" + dir.string() + "' --budget 1m --db '" + db.string() + "'");
    EXPECT_EQ(run.exit_code, 2) << dir << "\n" << run.output;
    EXPECT_NE(run.output.find(expected), std::string::npos) << run.output;
    EXPECT_FALSE(fs::exists(db)) << dir;
  }
  const auto no_tokenizer = tune::testing::tune_cli("--model '" + good.string() + "' --tokenizer '" + good.string() +
                                              "' --budget 1m --db '" + (good.parent_path() / "t.db").string() + "'");
  EXPECT_EQ(no_tokenizer.exit_code, 2) << no_tokenizer.output;
  EXPECT_NE(no_tokenizer.output.find("has no tokenizer files"), std::string::npos) << no_tokenizer.output;
  EXPECT_FALSE(fs::exists(good.parent_path() / "t.db"));
}

// The common case for a folder: fine-tune its pretrained weights on a labelled CSV with its own tokenizer. The
// search starts from the fine-tuning rates and the row says "pretrained".
TEST(HfFolderCli, AFolderWithWeightsAndTokenizerIsAFineTuningSearch) {
  const fs::path dir = reference_folder(tiny_yaml("distilbert-sst2-tiny"), "");
  std::ifstream full(fs::path(TUNE_SOURCE_DIR) / ".." / "shared" / "data" / "tokenizers" / "bert-base-uncased" /
                     "vocab.txt");
  std::ofstream vocab(dir / "vocab.txt");  // the model's 1024 ids: BERT's specials, then the first words
  std::string line;
  for (int i = 0; i < 1024 && std::getline(full, line); ++i) vocab << line << "\n";
  vocab.close();
  const std::string csv = (fs::path(TUNE_SOURCE_DIR) / ".." / "shared" / "data" / "classification" /
                           "fine_foods_train.csv").string();
  const auto run = tune::testing::tune_cli("--model '" + dir.string() + "' --dataset '" + csv +
                                           "' --backends eager --precisions fp32 --max-trials 2 --budget 5m --json --db '" +
                                           (dir.parent_path() / "t.db").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("tune: model from Hugging Face folder " + dir.string() +
                            " (DistilBertForSequenceClassification)"),
            std::string::npos) << run.output;
  EXPECT_NE(run.output.find("pretrained start (weights " + dir.string()), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("WordPiece tokenizer from " + (dir / "vocab.txt").string()), std::string::npos) << run.output;
  const auto json = nlohmann::json::parse(run.output.substr(run.output.find("\n{") + 1));
  ASSERT_FALSE(json["rows"].empty()) << run.output;
  for (const auto& row : json["rows"]) EXPECT_EQ(row["start"], "pretrained") << row.dump();
  // Its rates are scored on held-out rows: 10% of the CSV's 4000 (configs/search.yaml held_out_share).
  int rate_trials = 0;
  const Database db((dir.parent_path() / "t.db").string());
  for (const auto& [id, key] : db.studies())
    for (const auto& t : db.trials(id)) {
      if (t.spec.purpose != TrialPurpose::learning_rate) continue;
      ++rate_trials;
      EXPECT_DOUBLE_EQ(t.spec.data.held_out_share, 0.1);
      if (!t.result.ok()) continue;
      EXPECT_EQ(t.result.held_out_rows, 400);
      EXPECT_DOUBLE_EQ(t.result.score_loss, t.result.held_out_loss);
    }
  EXPECT_GT(rate_trials, 0) << run.output;
}

// `tune models --describe DIR` prints the YAML tune derives; as a model YAML it is the same model.
TEST(HfFolderCli, DescribePrintsAYamlThatPinsTheFolder) {
  const fs::path dir = reference_folder(tiny_yaml("gpt2-tiny"), "");
  const auto run = tune::testing::run_command(std::string(TUNE_EXECUTABLE) + " models --describe '" + dir.string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::string yaml = write_file(dir.parent_path() / "pinned.yaml", run.output);
  EXPECT_EQ(load_model_config(yaml).config_hash(), resolve_model_source(dir.string()).config.config_hash()) << run.output;
  EXPECT_EQ(load_model_config(yaml).hf_class, "GPT2LMHeadModel");
}
