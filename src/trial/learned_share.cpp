#include "trial/learned_share.h"

#include <cmath>

namespace tune {

double untrained_loss(const ModelConfig& model, double first_step_loss, double label_prior_loss) {
  if (model.task == "sequence_classification" && model.num_labels > 1)
    return label_prior_loss > 0 ? label_prior_loss : std::log(static_cast<double>(model.num_labels));
  return first_step_loss > 0 ? first_step_loss : 0;
}

std::optional<double> learned_share(double score_loss, double untrained) {
  if (!(score_loss > 0) || !(untrained > 0)) return std::nullopt;
  return 1 - score_loss / untrained;
}

}  // namespace tune
