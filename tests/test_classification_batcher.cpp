// Classification batches: [CLS] ids [SEP] truncated or padded with the pad id, a mask hiding the
// padding, labels [batch]; seeded sampling; and the training data built from a CSV or the corpus fallback.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "data/classification_batcher.h"
#include "data/held_out.h"
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

// A learning-rate trial of the tiny classifier on the CSV at `dataset`, seq 16, one thread, one warm-up step.
TrialSpec classifier_rate_spec(const std::string& dataset, int batch_size, int train_steps) {
  TrialSpec s;
  s.model = resolve_model("distilbert-sst2-tiny");
  s.data.dataset_path = dataset;
  s.seq_len = 16;
  s.batch_size = batch_size;
  s.learning_rate = 1e-3;
  s.threads = 1;
  s.purpose = TrialPurpose::learning_rate;
  s.train_steps = train_steps;
  s.measure.warmup_steps = 1;
  return s;
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
  const std::string csv = "text,label\ngood food,yes\ngreat taste,yes\nnice tea,yes\nstale bread,no\n";
  TrialSpec s = classifier_rate_spec(tune::testing::write_file(dir / "d.csv", csv), 4, 20);
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

namespace {

// n rows "row I good|bad", labelled yes for good (every third row) and no for bad: unique texts, a 1:2 prior.
std::string labelled_csv(int n) {
  std::string text = "text,label\n";
  for (int i = 0; i < n; ++i) text += "row " + std::to_string(i) + (i % 3 == 0 ? " good,yes\n" : " bad,no\n");
  return text;
}

std::vector<LabelledExample> numbered_examples(int n) {
  std::vector<LabelledExample> examples;
  for (int i = 0; i < n; ++i) examples.push_back({{i}, i % 2});
  return examples;
}

}  // namespace

// A share of the rows, drawn by the split's own seed, never by a trial's: every rate and seed of a study is scored
// on the same rows, and they are gone from what is trained on.
TEST(HeldOut, TheSplitIsAFixedShareOfTheRowsAndLeavesThemOutOfTraining) {
  std::vector<LabelledExample> kept = numbered_examples(1000), again = numbered_examples(1000);
  const auto held = split_held_out(kept, 0.1), held_again = split_held_out(again, 0.1);
  ASSERT_EQ(held.size(), 100u);
  ASSERT_EQ(kept.size(), 900u);
  std::set<int64_t> held_ids, kept_ids;
  for (size_t i = 0; i < held.size(); ++i) {
    held_ids.insert(held[i].ids[0]);
    EXPECT_EQ(held[i].ids, held_again[i].ids) << i;
    EXPECT_EQ(held[i].label, held[i].ids[0] % 2) << "a row keeps its label";
  }
  for (const auto& e : kept) kept_ids.insert(e.ids[0]);
  EXPECT_EQ(held_ids.size(), 100u);
  EXPECT_EQ(kept_ids.size(), 900u);
  for (int64_t id : held_ids) EXPECT_EQ(kept_ids.count(id), 0u) << id;
  EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.ids < b.ids; }));
  EXPECT_LT(*held_ids.rbegin() - *held_ids.begin(), 1000);
  EXPECT_GT(*held_ids.rbegin() - *held_ids.begin(), 500) << "drawn across the file, not its first rows";

  std::vector<LabelledExample> large = numbered_examples(20000);
  EXPECT_EQ(split_held_out(large, 0.1).size(), kMaxHeldOutRows);
  std::vector<LabelledExample> small = numbered_examples(300);  // 10% is 30 rows: too few to score on
  EXPECT_TRUE(split_held_out(small, 0.1).empty());
  EXPECT_EQ(small.size(), 300u);
  EXPECT_TRUE(split_held_out(small, 0).empty());
  EXPECT_THROW(split_held_out(small, 1.0), std::invalid_argument);
  EXPECT_THROW(split_held_out(small, -0.1), std::invalid_argument);
}

TEST(HeldOut, HeldOutBatchesKeepEveryRowInOrder) {
  const ModelConfig c = roberta_classifier();
  const auto batches = held_out_batches({{{10, 11}, 2}, {{12}, 0}, {{13, 14, 15}, 1}}, c, 6, 2);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0].input_ids.size(0), 2);
  EXPECT_EQ(batches[1].input_ids.size(0), 1);  // the last, partial batch
  EXPECT_EQ(batches[0].labels[1].item<int64_t>(), 0);
  EXPECT_EQ(batches[1].labels[0].item<int64_t>(), 1);
  EXPECT_EQ(batches[1].input_ids[0][2].item<int64_t>(), 14);  // [CLS] 13 14 15 [SEP]
  EXPECT_NEAR(label_entropy({0, 0, 1, 1}), std::log(2.0), 1e-12);
  EXPECT_DOUBLE_EQ(label_entropy({1, 1, 1}), 0);
}

// A classifier's learning-rate trial with held-out rows is scored on them: its score is their loss (not its last
// steps' training loss), its untrained loss their labels' entropy, and the log says how many rows were held out.
TEST(ClassificationData, ALearningRateTrialIsScoredOnItsHeldOutRows) {
  const auto dir = tune::testing::temp_dir("cls-held-out");
  TrialSpec s = classifier_rate_spec(tune::testing::write_file(dir / "d.csv", labelled_csv(400)), 8, 12);
  s.data.held_out_share = 0.1;
  std::string description;
  TrainingData data = load_training_data(s.model, s.data, &description);
  ASSERT_EQ(data.held_out.size(), 40u);
  EXPECT_EQ(data.examples.size(), 360u);
  EXPECT_NE(description.find("40 held out for the score"), std::string::npos) << description;
  std::vector<int64_t> held_labels;
  for (const auto& e : data.held_out) held_labels.push_back(e.label);

  const TrialResult r = run_trial_in_process(s);
  ASSERT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.held_out_rows, 40);
  EXPECT_DOUBLE_EQ(r.score_loss, r.held_out_loss);
  EXPECT_NE(r.score_loss, tail_mean_loss(r.losses));
  EXPECT_GT(r.held_out_loss, 0);
  EXPECT_GE(r.held_out_accuracy, 0);
  EXPECT_LE(r.held_out_accuracy, 1);
  EXPECT_NEAR(r.held_out_accuracy * 40, std::round(r.held_out_accuracy * 40), 1e-9) << "a share of 40 rows";
  EXPECT_NEAR(r.label_prior_loss, label_entropy(held_labels), 1e-12);

  s.data.held_out_share = 0;  // without a share: the training loss, as before
  const TrialResult plain = run_trial_in_process(s);
  ASSERT_TRUE(plain.ok()) << plain.error_message;
  EXPECT_EQ(plain.held_out_rows, 0);
  EXPECT_DOUBLE_EQ(plain.score_loss, tail_mean_loss(plain.losses));
  EXPECT_NE(s.config_key(), [&] {
    TrialSpec held = s;
    held.data.held_out_share = 0.1;
    return held.config_key();
  }()) << "a trial scored on held-out rows is another measurement";
}
