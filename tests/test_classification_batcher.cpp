// Classification batches: [CLS] ids [SEP] truncated or padded with the pad id, a mask hiding the
// padding, labels [batch]; seeded sampling; and the training data built from a CSV or the corpus fallback.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <set>

#include "data/classification_batcher.h"
#include "data/training_data.h"
#include "test_helpers.h"
#include "trial/learned_share.h"
#include "trial/trial_runner.h"

using namespace tune;

namespace {

ModelConfig roberta_classifier() {  // RoBERTa's ids (<s> 0, <pad> 1, </s> 2) show pad is not hard-coded
  ModelConfig c = resolve_model("roberta-tiny");
  c.task = "sequence_classification";
  c.num_labels = 3;
  return c;
}

}  // namespace

TEST(ClassificationBatcher, WrapsTruncatesAndPads) {
  const ModelConfig c = roberta_classifier();
  ClassificationBatcher batcher({{{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, 2}}, c, 8, 1, 0);
  const Batch long_one = batcher.next();
  EXPECT_TRUE(torch::equal(long_one.input_ids[0], torch::tensor({0, 10, 11, 12, 13, 14, 15, 2}, torch::kInt64)));
  EXPECT_EQ(long_one.attention_mask.sum().item<int64_t>(), 8);
  EXPECT_EQ(long_one.labels.sizes(), (std::vector<int64_t>{1}));
  EXPECT_EQ(long_one.labels[0].item<int64_t>(), 2);

  ClassificationBatcher short_batcher({{{10, 11}, 1}}, c, 8, 2, 0);
  const Batch short_one = short_batcher.next();
  EXPECT_TRUE(torch::equal(short_one.input_ids[1], torch::tensor({0, 10, 11, 2, 1, 1, 1, 1}, torch::kInt64)));
  EXPECT_TRUE(torch::equal(short_one.attention_mask[1], torch::tensor({1, 1, 1, 1, 0, 0, 0, 0}, torch::kInt64)));
}

TEST(ClassificationBatcher, SamplingIsSeededAndCoversExamples) {
  const ModelConfig c = roberta_classifier();
  std::vector<LabelledExample> examples;
  for (int i = 0; i < 20; ++i) examples.push_back({{100 + i}, i % 3});
  ClassificationBatcher a(examples, c, 8, 16, 42), b(examples, c, 8, 16, 42), other(examples, c, 8, 16, 43);
  std::set<int64_t> seen;
  bool differs = false;
  for (int step = 0; step < 5; ++step) {
    const Batch x = a.next(), y = b.next(), z = other.next();
    EXPECT_TRUE(torch::equal(x.input_ids, y.input_ids) && torch::equal(x.labels, y.labels));
    differs |= !torch::equal(x.input_ids, z.input_ids);
    for (int64_t i = 0; i < 16; ++i) {
      const int64_t word = x.input_ids[i][1].item<int64_t>();
      EXPECT_EQ(x.labels[i].item<int64_t>(), (word - 100) % 3);  // each row keeps its own label
      seen.insert(word);
    }
  }
  EXPECT_TRUE(differs);
  EXPECT_GT(seen.size(), 15u);
}

TEST(ClassificationBatcher, RejectsBadLabelsAndLengths) {
  const ModelConfig c = roberta_classifier();
  EXPECT_THROW(ClassificationBatcher({{{10}, 3}}, c, 8, 1, 0), std::invalid_argument);   // num_labels is 3
  EXPECT_THROW(ClassificationBatcher({{{10}, 0}}, c, 129, 1, 0), std::invalid_argument);  // 130 positions - pad - 1
  EXPECT_NO_THROW(ClassificationBatcher({{{10}, 0}}, c, 128, 1, 0));
}

TEST(ClassificationData, CsvDatasetBecomesLabelledExamples) {
  const auto dir = tune::testing::temp_dir("cls");
  const ModelConfig model = resolve_model("distilbert-sst2-tiny");
  DataSettings s;
  s.dataset_path = tune::testing::write_file(dir / "d.csv", "text,label\nfine food,yes\n\"bad, stale\",no\n");
  std::string description;
  const TrainingData data = load_training_data(model, s, &description);
  ASSERT_EQ(data.examples.size(), 2u);
  EXPECT_EQ(data.examples[0].ids.size(), 2u);
  EXPECT_EQ(data.examples[0].label, 1);  // sorted: no=0, yes=1
  EXPECT_EQ(data.examples[1].label, 0);
  EXPECT_NE(description.find("d.csv"), std::string::npos) << description;

  s.dataset_path = tune::testing::write_file(dir / "e.csv", "text,label\na,x\nb,y\nc,z\n");  // 3 labels, model has 2
  EXPECT_THROW(load_training_data(model, s, nullptr), std::invalid_argument);
}

TEST(ClassificationData, FallbackLabelsCorpusSentencesByPart) {
  const auto dir = tune::testing::temp_dir("cls");
  const ModelConfig model = resolve_model("distilbert-sst2-tiny");
  DataSettings s;
  s.corpus_path = tune::testing::write_file(
      dir / "c.txt", "The whale swam far away today. The whale dove deep down there!\n\nTaxes rose again this year. "
                     "Congress passed it? too short.");  // the first half ends just before "Taxes"
  std::string description;
  const TrainingData data = load_training_data(model, s, &description);
  ASSERT_EQ(data.examples.size(), 4u);  // "too short." has fewer than 4 words
  EXPECT_EQ(data.examples[0].label, 0);
  EXPECT_EQ(data.examples[1].label, 0);
  EXPECT_EQ(data.examples[2].label, 1);
  EXPECT_EQ(data.examples[3].label, 1);
  EXPECT_NE(description.find("equal parts"), std::string::npos) << description;
}

// A classifier's learning-rate trial records the loss of predicting its labels' frequencies: the entropy of the
// labels it trained on (a 3:1 CSV drawn with replacement: near 0.56, below chance ln 2), and that is the untrained
// loss a rate must learn 10% below (trial/learned_share.h).
TEST(ClassificationData, ATrialRecordsItsLabelPriorLoss) {
  const auto dir = tune::testing::temp_dir("cls-prior");
  TrialSpec s;
  s.model = resolve_model("distilbert-sst2-tiny");
  s.data.dataset_path = tune::testing::write_file(
      dir / "d.csv", "text,label\ngood food,yes\ngreat taste,yes\nnice tea,yes\nstale bread,no\n");
  s.seq_len = 16;
  s.batch_size = 4;
  s.learning_rate = 1e-3;
  s.threads = 1;
  s.purpose = TrialPurpose::learning_rate;
  s.train_steps = 20;
  s.measure.warmup_steps = 1;
  const TrialResult r = run_trial_in_process(s);
  ASSERT_TRUE(r.ok()) << r.error_message;
  std::map<int64_t, double> counts;
  double total = 0;
  std::string description;
  for (const Batch& b : trial_batches(s, &description))
    for (int64_t label : std::vector<int64_t>(b.labels.data_ptr<int64_t>(), b.labels.data_ptr<int64_t>() + b.labels.numel())) {
      counts[label] += 1;
      total += 1;
    }
  double entropy = 0;
  for (const auto& [label, n] : counts) entropy -= n / total * std::log(n / total);
  EXPECT_NEAR(r.label_prior_loss, entropy, 1e-9);
  EXPECT_GT(r.label_prior_loss, 0.3);
  EXPECT_LT(r.label_prior_loss, std::log(2.0) - 0.02);
  EXPECT_DOUBLE_EQ(untrained_loss(s.model, 9.0, r.label_prior_loss), r.label_prior_loss);
  EXPECT_DOUBLE_EQ(untrained_loss(s.model, 9.0, 0), std::log(2.0));  // stored before it was recorded: chance
  s.model = resolve_model("bert-tiny");
  EXPECT_DOUBLE_EQ(untrained_loss(s.model, 9.0, 0), 9.0);  // a language model: its first step's loss
}
