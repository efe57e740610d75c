// Numerical parity with Hugging Face transformers: the Python reference (tests/reference/make_reference.py)
// builds the HF model from the same YAML, saves weights, inputs, logits and loss; our model must match.
#pragma once
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "models/model_factory.h"
#include "models/safetensors.h"
#include "test_helpers.h"

namespace tune::testing {

struct ParityResult {
  int64_t hf_parameters = 0;
  int64_t our_parameters = 0;
  double logits_max_abs_diff = 0;
  double loss_abs_diff = 0;
};

inline Batch reference_batch(const std::map<std::string, torch::Tensor>& t) {
  auto get = [&](const char* name) { return t.count(name) ? t.at(name) : torch::Tensor(); };
  Batch b;
  b.input_ids = get("input_ids");
  b.token_type_ids = get("token_type_ids");
  b.attention_mask = get("attention_mask");
  b.labels = get("labels");
  b.decoder_input_ids = get("decoder_input_ids");
  return b;
}

// Runs the Python reference for `model`, loads its weights into our model and compares.
inline ParityResult check_parity(const ModelConfig& model, int batch, int seq) {
  const auto dir = temp_dir("parity-" + model.name);
  const std::string cmd = "python3 " + std::string(TUNE_SOURCE_DIR) + "/tests/reference/make_reference.py '" +
                          model.source_path + "' '" + dir.string() + "' --batch " + std::to_string(batch) +
                          " --seq " + std::to_string(seq) + " > '" + (dir / "log.txt").string() + "' 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream log(dir / "log.txt");
    ADD_FAILURE() << "reference failed: " << cmd << "\n" << log.rdbuf();
    return {};
  }
  ParityResult r;
  std::ifstream info(dir / "reference.json");
  r.hf_parameters = nlohmann::json::parse(info).at("num_parameters").get<int64_t>();
  TrainableModel ours = build_model_with_weights(model, 0, dir.string());
  r.our_parameters = parameter_count(*ours.module);
  ours.module->eval();
  const auto ref = read_safetensors((dir / "reference.safetensors").string());
  const Batch b = reference_batch(ref);
  torch::NoGradGuard no_grad;
  r.logits_max_abs_diff = (ours.logits(b) - ref.at("logits")).abs().max().item<double>();
  r.loss_abs_diff = std::abs(ours.loss(b).item<double>() - ref.at("loss").item<double>());
  return r;
}

// The parity assertions shared by the tiny and full-size suites; prints the figures for the notes.
inline void expect_parity(const std::string& name, int batch, int seq) {
  const ModelConfig model = resolve_model(name);
  const auto r = check_parity(model, batch, seq);
  EXPECT_EQ(r.our_parameters, r.hf_parameters);
  EXPECT_EQ(model.expected_parameters, r.hf_parameters) << "fix expected_parameters in " << model.source_path;
  EXPECT_LT(r.logits_max_abs_diff, 1e-4);
  EXPECT_LT(r.loss_abs_diff, 1e-4);
  std::printf("parity %s: params %lld, logits max abs diff %.3g, loss diff %.3g\n", model.name.c_str(),
              static_cast<long long>(r.our_parameters), r.logits_max_abs_diff, r.loss_abs_diff);
}

// Tested model names, tiny variants or full-size ones, for parameterised suites.
inline std::vector<std::string> tested_model_names(bool tiny) {
  std::vector<std::string> names;
  for (const auto& m : list_tested_models())
    if (m.tiny == tiny) names.push_back(m.name);
  return names;
}

// A gtest-safe test name from a model name ("bert-base-cased" -> "bert_base_cased").
inline std::string param_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (auto& c : n)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

}  // namespace tune::testing
