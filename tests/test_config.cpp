// Config parsing: model YAMLs, search settings, instance profiles and durations, with the error
// messages a user sees (file, key and expected type named).
#include <gtest/gtest.h>

#include <map>

#include "engine/search_settings.h"
#include "instance/instance.h"
#include "common/model_config.h"
#include "test_helpers.h"
#include "util/duration.h"

using namespace tune;
using tune::testing::temp_dir;
using tune::testing::error_of;
using tune::testing::write_file;

namespace {


const char* kValidModel = R"(name: m
family: bert
config:
  vocab_size: 1000
  hidden_size: 32
  num_hidden_layers: 1
  num_attention_heads: 2
  intermediate_size: 64
)";

}  // namespace

TEST(ModelConfig, LoadsTestedBertBaseCased) {
  const ModelConfig c = resolve_model("bert-base-cased");
  EXPECT_EQ(c.vocab_size, 28996);
  EXPECT_EQ(c.hidden_size, 768);
  EXPECT_EQ(c.num_hidden_layers, 12);
  EXPECT_EQ(c.num_attention_heads, 12);
  EXPECT_EQ(c.intermediate_size, 3072);
  EXPECT_EQ(c.max_position_embeddings, 512);
  EXPECT_EQ(c.type_vocab_size, 2);
  EXPECT_DOUBLE_EQ(c.layer_norm_eps, 1e-12);
  EXPECT_EQ(c.hidden_act, "gelu");
  EXPECT_EQ(c.expected_parameters, 108340804);
}

TEST(ModelConfig, WrongTypeNamesFileKeyAndExpectedType) {
  const auto dir = temp_dir("config");
  std::string text = kValidModel;
  text.replace(text.find("hidden_size: 32"), 15, "hidden_size: wide");
  const std::string path = write_file(dir / "bad.yaml", text);
  const std::string msg = error_of([&] { load_model_config(path); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("config.hidden_size"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected an integer"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'wide'"), std::string::npos) << msg;
}

TEST(ModelConfig, BrokenYamlAndMissingKeyAreNamed) {
  const auto dir = temp_dir("config");
  const std::string broken = write_file(dir / "broken.yaml", "name: [unclosed\n");
  EXPECT_NE(error_of([&] { load_model_config(broken); }).find("invalid YAML"), std::string::npos);
  std::string text = kValidModel;
  text.erase(text.find("  vocab_size: 1000\n"), 18);
  const std::string missing = write_file(dir / "missing.yaml", text);
  EXPECT_NE(error_of([&] { load_model_config(missing); }).find("missing key 'config.vocab_size'"), std::string::npos);
}

TEST(ModelConfig, UnknownModelListsKnownOnes) {
  const std::string msg = error_of([] { resolve_model("bert-huge"); });
  EXPECT_NE(msg.find("unknown model 'bert-huge'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bert-base-cased"), std::string::npos) << msg;
}

TEST(ModelConfig, UserYamlByPathAndJsonRoundTrip) {
  const auto dir = temp_dir("config");
  const ModelConfig c = resolve_model(write_file(dir / "mine.yaml", kValidModel));
  EXPECT_EQ(c.name, "m");
  const ModelConfig back = nlohmann::json(c).get<ModelConfig>();
  EXPECT_EQ(back.config_hash(), c.config_hash());
  ModelConfig wider = c;
  wider.hidden_size = 64;
  EXPECT_NE(wider.config_hash(), c.config_hash());
}

TEST(Duration, ParsesUnitsAndRejectsGarbage) {
  EXPECT_DOUBLE_EQ(parse_duration_seconds("20m"), 1200);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("1h30m"), 5400);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("45"), 45);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("1.5h"), 5400);
  EXPECT_NE(error_of([] { parse_duration_seconds("10x"); }).find("'10x'"), std::string::npos);
  EXPECT_THROW(parse_duration_seconds("soon"), std::invalid_argument);
  EXPECT_THROW(parse_duration_seconds(""), std::invalid_argument);
  EXPECT_NE(error_of([] { parse_duration_seconds("3.9e95s"); }).find("at most a year"), std::string::npos);
}

TEST(SearchSettings, DefaultsFileLoadsAndBadValueIsNamed) {
  const SearchSettings s = load_search_settings(default_search_settings_path());
  EXPECT_DOUBLE_EQ(s.budget_seconds, 1200);
  EXPECT_FALSE(s.learning_rates.empty());
  const auto dir = temp_dir("settings");
  const std::string path = write_file(dir / "s.yaml", "max_batch_size: lots\n");
  const std::string msg = error_of([&] { load_search_settings(path); });
  EXPECT_NE(msg.find("max_batch_size"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected an integer"), std::string::npos) << msg;
}

// A mistyped key (issue 20's max_batchsize) was silently ignored, keeping the default: now an error with the
// nearest known key.
TEST(SearchSettings, AnUnknownKeyIsAnErrorNamingTheNearestKnownOne) {
  const auto dir = temp_dir("settings");
  const std::string msg = error_of([&] { load_search_settings(write_file(dir / "s.yaml", "budget: 5m\nmax_batchsize: 64\n")); });
  EXPECT_NE(msg.find("s.yaml:2: unknown key 'max_batchsize' (did you mean 'max_batch_size'?)"), std::string::npos) << msg;
}

TEST(SearchSettings, ARateThatIsNotPositiveOrAFileThatIsNoMappingIsNamed) {
  const auto dir = temp_dir("settings");
  const auto error_for = [&](const std::string& text) {
    return error_of([&] { load_search_settings(write_file(dir / "s.yaml", text)); });
  };
  EXPECT_NE(error_for("learning_rates: [1.0e-4, -3.0e-4]\n").find("key 'learning_rates': expected rates > 0"),
            std::string::npos);
  EXPECT_NE(error_for("ramp_learning_rate: 0\n").find("ramp_learning_rate"), std::string::npos);
  EXPECT_NE(error_for("- budget\n- 5m\n").find("expected a mapping of keys, got a list"), std::string::npos)
      << error_for("- budget\n- 5m\n");
  EXPECT_NE(error_for("budget: 5m\nname: \xff\n").find("not valid UTF-8 at byte 17"), std::string::npos);
}

TEST(SearchSettings, BatchRangeMinAboveMaxIsNamed) {
  const auto dir = temp_dir("settings");
  const std::string path = write_file(dir / "s.yaml", "min_batch_size: 16\nmax_batch_size: 8\n");
  const std::string msg = error_of([&] { load_search_settings(path); });
  EXPECT_NE(msg.find("min_batch_size"), std::string::npos) << msg;
  EXPECT_NE(msg.find("16, 8 and 1024"), std::string::npos) << msg;
}

// A GPU search's batch range ends at gpu_max_batch_size (configs/search.yaml), a CPU's at max_batch_size.
TEST(SearchSettings, AGpuSearchRampsToTheGpuMaximum) {
  const SearchSettings s = load_search_settings(default_search_settings_path());
  EXPECT_EQ(settings_for_device(s, "cpu").max_batch_size, s.max_batch_size);
  EXPECT_EQ(settings_for_device(s, "cuda").max_batch_size, s.gpu_max_batch_size);
  EXPECT_EQ(settings_for_device(s, "cuda:1").max_batch_size, s.gpu_max_batch_size);
  EXPECT_GT(s.gpu_max_batch_size, 288) << "the vendor table's 24 GB cards already ran 288 at seq 128";
}

// Strategy options live with their strategy: tuner_options per strategy name; the ramp's gain, once a top-level
// key, is refused with where it went, and a bad value is named with its whole path.
TEST(SearchSettings, TunerOptionsArePerStrategyAndTheOldGainKeySaysWhereItWent) {
  const auto dir = temp_dir("settings");
  const SearchSettings s = load_search_settings(
      write_file(dir / "s.yaml", "tuner_options: {batch_ramp: {patience: 2}, asha: {eta: 2, rungs: 4}}\n"));
  EXPECT_EQ(s.options_for("batch_ramp"), (std::map<std::string, double>{{"patience", 2}}));
  EXPECT_EQ(s.options_for("asha").at("rungs"), 4);
  EXPECT_TRUE(s.options_for("gp").empty());
  const std::string moved = error_of([&] { load_search_settings(write_file(dir / "m.yaml", "min_throughput_gain: 0.1\n")); });
  EXPECT_NE(moved.find("tuner_options: {batch_ramp: {min_throughput_gain"), std::string::npos) << moved;
  const std::string bad = error_of([&] {
    load_search_settings(write_file(dir / "b.yaml", "tuner_options: {asha: {eta: fast}}\n"));
  });
  EXPECT_NE(bad.find("tuner_options.asha.eta"), std::string::npos) << bad;
  const std::string typo = error_of([&] {
    load_search_settings(write_file(dir / "t.yaml", "tuner_options: {batch_rmap: {patience: 2}}\n"));
  });
  EXPECT_NE(typo.find("'batch_rmap'"), std::string::npos) << typo;
  EXPECT_NE(typo.find("batch_ramp"), std::string::npos) << typo;
}

TEST(Instance, ProfileNarrowsDetectedMachine) {
  Instance detected = detect_cpu_instance();
  EXPECT_GE(detected.threads, 1);
  EXPECT_GT(detected.memory_bytes, 0);
  const Instance small = apply_instance_profile(detected, "cpu-1thread");
  EXPECT_EQ(small.threads, 1);
  EXPECT_LE(small.memory_bytes, parse_bytes("4GiB"));
  EXPECT_NE(small.fingerprint(), detected.fingerprint());
  EXPECT_NE(error_of([&] { apply_instance_profile(detected, "tpu-pod"); }).find("unknown instance 'tpu-pod'"),
            std::string::npos);
}

TEST(Instance, ParsesSizes) {
  EXPECT_EQ(parse_bytes("4GiB"), 4LL << 30);
  EXPECT_EQ(parse_bytes("512MiB"), 512LL << 20);
  EXPECT_EQ(parse_bytes("1024"), 1024);
  EXPECT_THROW(parse_bytes("4 parsecs"), std::invalid_argument);
}
