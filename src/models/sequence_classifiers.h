// BERT and RoBERTa (also XLM-R) sequence classification: Hugging Face's BertForSequenceClassification and
// RobertaForSequenceClassification, with HF's module names so fine-tuning checkpoints load by name.
#pragma once
#include <torch/torch.h>

#include "models/bert.h"
#include "common/model_config.h"
#include "models/model_factory.h"
#include "models/roberta.h"

namespace tune {

// bert (with its pooler: dense + tanh over [CLS]) -> dropout -> classifier.
struct BertForSequenceClassificationImpl : torch::nn::Module {
  explicit BertForSequenceClassificationImpl(const ModelConfig& c);
  // Logits [batch, num_labels].
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids,
                        const torch::Tensor& attention_mask);
  BertEmbeddings embeddings{nullptr};
  std::vector<BertLayer> layers;
  torch::nn::Linear pooler_dense{nullptr};  // HF: bert.pooler.dense
  torch::nn::Dropout dropout{nullptr};
  torch::nn::Linear classifier{nullptr};
};
TORCH_MODULE(BertForSequenceClassification);

// roberta (no pooler) -> HF's RobertaClassificationHead over <s>: dropout, dense, tanh, dropout, out_proj.
struct RobertaForSequenceClassificationImpl : torch::nn::Module {
  explicit RobertaForSequenceClassificationImpl(const ModelConfig& c);
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids,
                        const torch::Tensor& attention_mask);
  RobertaEmbeddings embeddings{nullptr};
  std::vector<BertLayer> layers;
  torch::nn::Linear dense{nullptr}, out_proj{nullptr};  // HF: classifier.dense, classifier.out_proj
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(RobertaForSequenceClassification);

// The factory's entries; single-label cross entropy as HF computes it for num_labels >= 2.
TrainableModel build_bert_classifier(const ModelConfig& config);
TrainableModel build_roberta_classifier(const ModelConfig& config);

}  // namespace tune
