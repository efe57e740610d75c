// Parity with Hugging Face for the full-size tested models (slow: label "slow", run by scripts/test --slow).
// Same checks as the tiny parity test, on the real configurations.
#include "parity_check.h"

namespace {
class FullParity : public ::testing::TestWithParam<std::string> {};
}  // namespace

TEST_P(FullParity, MatchesHuggingFace) { tune::testing::expect_parity(GetParam(), 1, 32); }

INSTANTIATE_TEST_SUITE_P(Full, FullParity, ::testing::ValuesIn(tune::testing::tested_model_names(false)),
                         tune::testing::param_test_name);
