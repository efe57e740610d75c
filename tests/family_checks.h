// Checks every model family must pass, shared by the family tests: a short real training run lowers the
// loss, and the jit backend's traced loss equals eager's on the same weights and batch.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <numeric>
#include <string>

#include "compile/jit_step.h"
#include "data/batch_source.h"
#include "models/model_factory.h"
#include "trial/trial_runner.h"

namespace tune::testing {

inline double mean_of(const std::vector<double>& v, size_t from, size_t to) {
  return std::accumulate(v.begin() + from, v.begin() + to, 0.0) / static_cast<double>(to - from);
}

// `steps` optimizer steps of run_trial_in_process; the mean of the last fifth must be `min_drop` below the first's.
// `adjust` changes the spec further (backend, precision, optimizer).
inline void expect_loss_falls(const std::string& model, int steps, double min_drop, const std::string& dataset = "",
                              double learning_rate = 1e-3, const std::function<void(TrialSpec&)>& adjust = {}) {
  TrialSpec s;
  s.model = resolve_model(model);
  s.seq_len = 32;
  s.batch_size = 8;
  s.learning_rate = learning_rate;
  s.seed = 3;
  s.threads = 1;
  s.purpose = TrialPurpose::learning_rate;
  s.train_steps = steps;
  s.data.dataset_path = dataset;
  if (adjust) adjust(s);
  const TrialResult r = run_trial_in_process(s);
  ASSERT_EQ(r.status, TrialStatus::ok) << r.error_message;
  ASSERT_EQ(r.losses.size(), static_cast<size_t>(steps));
  const size_t fifth = static_cast<size_t>(steps) / 5;
  const double first = mean_of(r.losses, 0, fifth), last = mean_of(r.losses, steps - fifth, steps);
  EXPECT_LT(last, first - min_drop) << model << ": loss did not fall: first " << first << ", last " << last;
  EXPECT_EQ(r.parameter_count, s.model.expected_parameters);
  std::printf("%s (%s, %s, %s): loss %.4f -> %.4f over %d steps\n", model.c_str(), s.step.backend.c_str(),
              s.step.precision.c_str(), s.step.optimizer.c_str(), first, last, steps);
}

// A tested model with every dropout off (the common ones and each family's own keys): runs are deterministic.
inline ModelConfig without_dropout(const std::string& model) {
  ModelConfig c = resolve_model(model);
  c.hidden_dropout_prob = c.attention_probs_dropout_prob = 0;
  for (const char* key : {"seq_classif_dropout", "embd_pdrop", "dropout_rate"}) c.hf[key] = 0.0;
  // The HF config values too: the Python worker builds Hugging Face's module from them.
  for (auto item : c.hf.items())
    if (item.key().find("drop") != std::string::npos && item.value().is_number()) item.value() = 0.0;
  return c;
}

// Same seed, no dropout: the traced graph's loss equals the eager module's on one batch of the model's task.
inline void expect_jit_loss_equals_eager(const std::string& model, const std::string& attention = "math") {
  const ModelConfig c = without_dropout(model);
  const Batch b = make_batch_source(c, {}, 16, 4, 1)->next();
  auto eager_model = build_model(c, 7, attention);
  const double eager_loss = eager_model.loss(b).item<double>();
  auto jit_model = build_model(c, 7, attention);
  JitStep jit(jit_model, StepOptions{1e-3});
  jit.prepare(b);
  for (int run = 0; run < 3; ++run)  // profiling run, optimizing run, optimized run
    EXPECT_NEAR(jit.traced_loss(b).item<double>(), eager_loss, 1e-5) << model << ", run " << run;
}

}  // namespace tune::testing
