// Tests for the training-FLOPs model: its parameter accounting against HF's counts for every
// tested model, and the scaling of each term with batch and sequence length.
#include <gtest/gtest.h>

#include "common/model_config.h"
#include "models/model_flops.h"

namespace tune {
namespace {

// Matmul weights + embeddings leave out only biases, norms and tiny heads: within 2% of HF's count.
TEST(ModelFlops, ParameterAccountingMatchesEveryFullSizeModel) {
  int checked = 0;
  for (const auto& m : list_tested_models()) {
    if (m.tiny) continue;
    const double counted = static_cast<double>(block_matmul_parameters(m) + embedding_parameters(m));
    EXPECT_NEAR(counted / m.expected_parameters, 1.0, 0.02) << m.name << ": counted " << counted;
    ++checked;
  }
  EXPECT_EQ(checked, 10);
}

TEST(ModelFlops, BertBaseMatchesTheSixNRuleAndAttentionTerm) {
  const auto bert = resolve_model("bert-base-cased");
  const auto f = training_flops(bert, 8, 128);
  const double n_blocks = 12.0 * (4 * 768 * 768 + 2 * 768 * 3072);
  EXPECT_NEAR(f.dense, 6 * 8 * 128 * (n_blocks + 768.0 * 768), 1.0);
  EXPECT_NEAR(f.attention, 3.0 * 4 * 8 * 128 * 128 * 768 * 12, 1.0);
  EXPECT_NEAR(f.head, 6.0 * 8 * 128 * 768 * 28996, 1.0);
  // Linear in batch; attention quadratic in sequence length.
  EXPECT_NEAR(training_flops(bert, 16, 128).total(), 2 * f.total(), 1.0);
  EXPECT_NEAR(training_flops(bert, 8, 256).attention, 4 * f.attention, 1.0);
}

TEST(ModelFlops, ClassifierHeadCountsOneTokenPerSequence) {
  const auto sst2 = resolve_model("distilbert-base-uncased-finetuned-sst-2-english");
  const auto f = training_flops(sst2, 4, 128);
  EXPECT_NEAR(f.head, 6.0 * 4 * 768 * 2, 1.0);
}

TEST(ModelFlops, T5CountsEncoderDecoderAndCrossAttention) {
  const auto t5 = resolve_model("t5-base");
  const auto short_targets = training_flops(t5, 2, 128, 32);
  const auto long_targets = training_flops(t5, 2, 128, 64);
  EXPECT_GT(long_targets.dense, short_targets.dense);
  EXPECT_GT(long_targets.attention, short_targets.attention);
  EXPECT_NEAR(long_targets.head, 2 * short_targets.head, 1.0);  // logits only on decoder tokens
}

TEST(ModelFlops, UtilizationIsAchievedOverPeak) {
  EXPECT_DOUBLE_EQ(model_flops_utilization(1e12, 2.0, 1e12), 0.5);
  EXPECT_DOUBLE_EQ(model_flops_utilization(1e12, 2.0, 0.0), 0.0);  // unknown peak
}

}  // namespace
}  // namespace tune
