// The calibration workload: stock torch::nn modules and torch::optim::AdamW, deliberately sharing no code with
// src/models or src/compile, so a regression there cannot slow the yardstick it is measured against.
#include "trial/calibration_step.h"

#include <cmath>

namespace tune {
namespace {

struct CalibrationLayerImpl : torch::nn::Module {
  CalibrationLayerImpl(int64_t hidden, int64_t intermediate)
      : qkv(register_module("qkv", torch::nn::Linear(hidden, 3 * hidden))),
        out(register_module("out", torch::nn::Linear(hidden, hidden))),
        up(register_module("up", torch::nn::Linear(hidden, intermediate))),
        down(register_module("down", torch::nn::Linear(intermediate, hidden))),
        norm1(register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden})))),
        norm2(register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden})))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    const auto parts = qkv(x).chunk(3, -1);
    const double scale = 1.0 / std::sqrt(static_cast<double>(x.size(-1)));
    const auto attention = torch::softmax(torch::matmul(parts[0], parts[1].transpose(-2, -1)) * scale, -1);
    const auto h = norm1(x + out(torch::matmul(attention, parts[2])));
    return norm2(h + down(torch::gelu(up(h))));
  }

  torch::nn::Linear qkv, out, up, down;
  torch::nn::LayerNorm norm1, norm2;
};
TORCH_MODULE(CalibrationLayer);

struct CalibrationModelImpl : torch::nn::Module {
  CalibrationModelImpl(int64_t vocab, int64_t hidden, int64_t intermediate, int64_t layers)
      : embed(register_module("embed", torch::nn::Embedding(vocab, hidden))),
        head(register_module("head", torch::nn::Linear(hidden, vocab))),
        blocks(register_module("blocks", torch::nn::ModuleList())) {
    for (int64_t i = 0; i < layers; ++i) blocks->push_back(CalibrationLayer(hidden, intermediate));
  }

  torch::Tensor loss(const torch::Tensor& ids) {
    auto x = embed(ids);
    for (const auto& block : *blocks) x = block->as<CalibrationLayer>()->forward(x);
    const auto logits = head(x);
    return torch::nn::functional::cross_entropy(logits.flatten(0, 1), ids.flatten());
  }

  torch::nn::Embedding embed;
  torch::nn::Linear head;
  torch::nn::ModuleList blocks;
};
TORCH_MODULE(CalibrationModel);

CalibrationModel placed_on(CalibrationModel model, const torch::Device& device) {
  model->to(device);
  return model;
}

class CalibrationStep : public TrainStep {
 public:
  CalibrationStep(const ModelConfig& m, double learning_rate, const torch::Device& device)
      : model_(placed_on(CalibrationModel(m.vocab_size, m.hidden_size, m.intermediate_size, m.num_hidden_layers),
                         device)),
        optimizer_(model_->parameters(), torch::optim::AdamWOptions(learning_rate)) {}

  std::string backend() const override { return kCalibrationBackend; }
  CompileReport prepare(const Batch&) override { return {0.0, "calibration workload: stock libtorch, eager"}; }

  torch::Tensor step(const Batch& batch) override {
    optimizer_.zero_grad();
    const auto loss = model_->loss(batch.input_ids);
    loss.backward();
    optimizer_.step();
    return loss.detach();
  }

 private:
  CalibrationModel model_;
  torch::optim::AdamW optimizer_;
};

}  // namespace

std::unique_ptr<TrainStep> make_calibration_step(const ModelConfig& model, double learning_rate,
                                                 const torch::Device& device) {
  TORCH_CHECK(model.vocab_size > 0 && model.hidden_size > 0 && model.intermediate_size > 0 &&
                  model.num_hidden_layers > 0,
              "calibration workload needs the model's dimensions; ", model.name, " has none");
  return std::make_unique<CalibrationStep>(model, learning_rate, device);
}

}  // namespace tune
