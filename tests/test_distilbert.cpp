// The DistilBERT family: HF's parameter names and counts for both heads, the classifier's logits and
// loss, real training runs (masked LM on text, the classifier on fine-food reviews), jit equal to eager.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "family_checks.h"
#include "models/distilbert.h"

using namespace tune;

namespace {

std::string fine_foods_train() { return std::string(TUNE_SOURCE_DIR) + "/../shared/data/classification/fine_foods_train.csv"; }

}  // namespace

TEST(DistilBert, ParameterCountsEqualHuggingFace) {
  for (const char* name : {"distilbert-tiny", "distilbert-sst2-tiny", "distilbert-base-uncased",
                           "distilbert-base-uncased-finetuned-sst-2-english"}) {
    const ModelConfig c = resolve_model(name);
    EXPECT_EQ(parameter_count(*build_model(c, 0).module), c.expected_parameters) << name;
  }
  EXPECT_EQ(resolve_model("distilbert-base-uncased").expected_parameters, 66985530);  // HF DistilBertForMaskedLM
}

TEST(DistilBert, ParameterNamesFollowHuggingFaceStateDict) {
  const auto mlm = build_model(resolve_model("distilbert-tiny"), 0).module->named_parameters();
  for (const char* name : {"distilbert.embeddings.word_embeddings.weight", "distilbert.embeddings.position_embeddings.weight",
                           "distilbert.embeddings.LayerNorm.weight", "distilbert.transformer.layer.0.attention.q_lin.weight",
                           "distilbert.transformer.layer.0.attention.k_lin.bias", "distilbert.transformer.layer.1.attention.v_lin.weight",
                           "distilbert.transformer.layer.1.attention.out_lin.bias", "distilbert.transformer.layer.1.sa_layer_norm.weight",
                           "distilbert.transformer.layer.1.ffn.lin1.weight", "distilbert.transformer.layer.1.ffn.lin2.bias",
                           "distilbert.transformer.layer.1.output_layer_norm.bias", "vocab_transform.weight",
                           "vocab_layer_norm.weight", "vocab_projector.bias"})
    EXPECT_TRUE(mlm.contains(name)) << name;
  EXPECT_FALSE(mlm.contains("vocab_projector.weight"));  // tied to word_embeddings
  EXPECT_FALSE(mlm.contains("distilbert.embeddings.token_type_embeddings.weight"));
  const auto cls = build_model(resolve_model("distilbert-sst2-tiny"), 0).module->named_parameters();
  for (const char* name : {"pre_classifier.weight", "pre_classifier.bias", "classifier.weight", "classifier.bias"})
    EXPECT_TRUE(cls.contains(name)) << name;
  EXPECT_FALSE(cls.contains("vocab_projector.bias"));
}

TEST(DistilBert, ClassifierLossIsCrossEntropyOfFirstTokenLogits) {
  ModelConfig c = resolve_model("distilbert-sst2-tiny");
  c.hidden_dropout_prob = c.attention_probs_dropout_prob = 0;
  c.hf["seq_classif_dropout"] = 0.0;
  auto model = DistilBertForSequenceClassification(c);
  const auto ids = torch::randint(c.first_word_token_id, c.vocab_size, {3, 12}, torch::kInt64);
  const auto mask = torch::ones_like(ids);
  const auto labels = torch::tensor({0, 1, 1}, torch::kInt64);
  const auto logits = model->forward(ids, mask);
  ASSERT_EQ(logits.sizes(), (std::vector<int64_t>{3, c.num_labels}));
  const auto picked = torch::log_softmax(logits, -1).gather(1, labels.unsqueeze(1));
  EXPECT_NEAR(model->loss(ids, mask, labels).item<double>(), -picked.mean().item<double>(), 1e-6);
  EXPECT_NEAR(model->loss(ids, mask, labels).item<double>(), std::log(2.0), 0.1);  // small init: near chance
}

TEST(DistilBert, HeadFollowsHfClass) {
  ModelConfig c = resolve_model("distilbert-tiny");
  c.hf_class = "DistilBertForQuestionAnswering";
  EXPECT_THROW(build_model(c, 0), std::invalid_argument);
  c = resolve_model("distilbert-sst2-tiny");
  c.num_labels = 1;  // HF's regression head is not implemented
  EXPECT_THROW(build_model(c, 0), std::invalid_argument);
}

TEST(DistilBert, TinyLearnsFromRealText) { tune::testing::expect_loss_falls("distilbert-tiny", 30, 0.5); }

// Learning-rate trials see fresh batches at every step (no memorising a cycled pool), so the sentiment
// signal itself must be learnt: 300 steps (2400 reviews), where a cycled pool of 16 batches needed 30.
TEST(DistilBert, TinyClassifierLearnsFineFoodReviews) {
  tune::testing::expect_loss_falls("distilbert-sst2-tiny", 300, 0.05, fine_foods_train());
}

TEST(DistilBert, TinyClassifierLearnsCorpusFallback) {  // a weaker signal than reviews: more steps
  tune::testing::expect_loss_falls("distilbert-sst2-tiny", 300, 0.05);
}

TEST(DistilBert, JitLossEqualsEager) {
  tune::testing::expect_jit_loss_equals_eager("distilbert-tiny");
  tune::testing::expect_jit_loss_equals_eager("distilbert-sst2-tiny");
}
