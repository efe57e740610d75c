// Scoring on held-out rows. Eval mode, because a job's model is judged without dropout; fp32, because a bf16
// autocast's rounding would add noise of its own to differences between rates.
#include "trial/held_out_score.h"

#include "data/held_out.h"
#include "util/check.h"

namespace tune {

HeldOutScore score_held_out(const TrainableModel& model, const std::vector<Batch>& batches) {
  TUNE_CHECK(model.logits, "a classifier's model has a logits function");
  HeldOutScore score;
  torch::NoGradGuard no_grad;
  model.module->eval();
  for (const Batch& batch : batches) {
    const torch::Tensor logits = model.logits(batch).to(torch::kFloat);
    const torch::Tensor labels = batch.labels.to(logits.device());
    score.loss_sum += torch::nn::functional::cross_entropy(
                          logits, labels, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                          .item<double>();
    score.correct += logits.argmax(-1).eq(labels).sum().item<int64_t>();
    score.rows += labels.numel();
  }
  model.module->train();
  return score;
}

double batches_label_entropy(const std::vector<Batch>& batches) {
  std::vector<int64_t> labels;
  for (const Batch& b : batches) {
    const torch::Tensor l = b.labels.cpu().contiguous();
    labels.insert(labels.end(), l.data_ptr<int64_t>(), l.data_ptr<int64_t>() + l.numel());
  }
  return label_entropy(labels);
}

}  // namespace tune
