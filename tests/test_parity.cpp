// Parity with Hugging Face for every tiny variant (fast, runs in CI): same parameter count as HF's
// num_parameters(), HF's checkpoint loads by name, logits and loss within 1e-4 in fp32.
#include "parity_check.h"

using namespace tune;

namespace {

std::vector<std::string> tiny_models() {
  std::vector<std::string> names;
  for (const auto& m : list_tested_models())
    if (m.tiny) names.push_back(m.name);
  return names;
}

class TinyParity : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(TinyParity, MatchesHuggingFace) {
  const ModelConfig model = resolve_model(GetParam());
  const auto r = tune::testing::check_parity(model, 2, 16);
  EXPECT_EQ(r.our_parameters, r.hf_parameters);
  EXPECT_EQ(model.expected_parameters, r.hf_parameters) << "fix expected_parameters in " << model.source_path;
  EXPECT_LT(r.logits_max_abs_diff, 1e-4);
  EXPECT_LT(r.loss_abs_diff, 1e-4);
  std::printf("parity %s: params %lld, logits max abs diff %.3g, loss diff %.3g\n", model.name.c_str(),
              static_cast<long long>(r.our_parameters), r.logits_max_abs_diff, r.loss_abs_diff);
}

INSTANTIATE_TEST_SUITE_P(Tiny, TinyParity, ::testing::ValuesIn(tiny_models()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (auto& c : n) if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });
