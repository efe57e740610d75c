// Parity with Hugging Face for every tiny variant (fast, runs in CI): same parameter count as HF's
// num_parameters(), HF's checkpoint loads by name, logits and loss within 1e-4 in fp32.
#include "parity_check.h"

namespace {
class TinyParity : public ::testing::TestWithParam<std::string> {};
}  // namespace

TEST_P(TinyParity, MatchesHuggingFace) { tune::testing::expect_parity(GetParam(), 2, 16); }

INSTANTIATE_TEST_SUITE_P(Tiny, TinyParity, ::testing::ValuesIn(tune::testing::tested_model_names(true)),
                         tune::testing::param_test_name);
