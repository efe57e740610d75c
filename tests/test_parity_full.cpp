// Parity with Hugging Face for the full-size tested models (slow: label "slow", run by scripts/test --slow).
// Same checks as the tiny parity test, on the real configurations.
#include "parity_check.h"

using namespace tune;

namespace {

std::vector<std::string> full_models() {
  std::vector<std::string> names;
  for (const auto& m : list_tested_models())
    if (!m.tiny) names.push_back(m.name);
  return names;
}

class FullParity : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(FullParity, MatchesHuggingFace) {
  const ModelConfig model = resolve_model(GetParam());
  const auto r = tune::testing::check_parity(model, 1, 32);
  EXPECT_EQ(r.our_parameters, r.hf_parameters);
  EXPECT_EQ(model.expected_parameters, r.hf_parameters) << "fix expected_parameters in " << model.source_path;
  EXPECT_LT(r.logits_max_abs_diff, 1e-4);
  EXPECT_LT(r.loss_abs_diff, 1e-4);
  std::printf("parity %s: params %lld, logits max abs diff %.3g, loss diff %.3g\n", model.name.c_str(),
              static_cast<long long>(r.our_parameters), r.logits_max_abs_diff, r.loss_abs_diff);
}

INSTANTIATE_TEST_SUITE_P(Full, FullParity, ::testing::ValuesIn(full_models()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (auto& c : n) if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });
