// Sequence classification heads over the shared BERT encoder layers, as transformers builds them: BERT pools
// [CLS] through its pooler, RoBERTa's head reads <s> directly; dropout is classifier_dropout or the hidden one.
#include "models/sequence_classifiers.h"

#include <stdexcept>

namespace tune {
namespace {

void check_labels(const ModelConfig& c) {
  if (c.num_labels < 2)  // HF turns num_labels 1 into regression, which these heads do not implement
    throw std::invalid_argument(c.source_path + ": num_labels: expected at least 2, got " +
                                std::to_string(c.num_labels));
}

double classifier_dropout(const ModelConfig& c) { return c.hf_double("classifier_dropout", c.hidden_dropout_prob); }

torch::Tensor classification_loss(const torch::Tensor& logits, const torch::Tensor& labels) {
  return torch::nn::functional::cross_entropy(logits, labels.view({-1}));
}

template <typename Impl>
TrainableModel trainable(std::shared_ptr<Impl> impl, std::vector<std::string> ignored) {
  return {impl,
          [impl](const Batch& b) {
            return classification_loss(impl->forward(b.input_ids, b.token_type_ids, b.attention_mask), b.labels);
          },
          [impl](const Batch& b) { return impl->forward(b.input_ids, b.token_type_ids, b.attention_mask); },
          std::move(ignored)};
}

}  // namespace

BertForSequenceClassificationImpl::BertForSequenceClassificationImpl(const ModelConfig& c) {
  check_labels(c);
  auto bert = container(*this, "bert");
  embeddings = bert->register_module("embeddings", BertEmbeddings(c));
  layers = register_encoder_layers(*bert, c);
  pooler_dense = container(*bert, "pooler")->register_module("dense", torch::nn::Linear(c.hidden_size, c.hidden_size));
  dropout = register_module("dropout", torch::nn::Dropout(classifier_dropout(c)));
  classifier = register_module("classifier", torch::nn::Linear(c.hidden_size, c.num_labels));
  init_bert_weights(*this, c.initializer_range);
}

torch::Tensor BertForSequenceClassificationImpl::forward(const torch::Tensor& input_ids,
                                                         const torch::Tensor& token_type_ids,
                                                         const torch::Tensor& attention_mask) {
  const auto h = run_encoder(layers, embeddings(input_ids, token_type_ids), attention_mask);
  const auto pooled = torch::tanh(pooler_dense(h.select(1, 0)));
  return classifier(dropout(pooled));
}

RobertaForSequenceClassificationImpl::RobertaForSequenceClassificationImpl(const ModelConfig& c) {
  check_labels(c);
  TORCH_CHECK(c.max_position_embeddings > c.pad_token_id + 1, c.source_path, ": max_position_embeddings too small");
  auto roberta = container(*this, "roberta");
  embeddings = roberta->register_module("embeddings", RobertaEmbeddings(c));
  layers = register_encoder_layers(*roberta, c);
  auto head = container(*this, "classifier");
  dense = head->register_module("dense", torch::nn::Linear(c.hidden_size, c.hidden_size));
  out_proj = head->register_module("out_proj", torch::nn::Linear(c.hidden_size, c.num_labels));
  dropout = register_module("dropout", torch::nn::Dropout(classifier_dropout(c)));
  init_bert_weights(*this, c.initializer_range);
}

torch::Tensor RobertaForSequenceClassificationImpl::forward(const torch::Tensor& input_ids,
                                                            const torch::Tensor& token_type_ids,
                                                            const torch::Tensor& attention_mask) {
  const auto h = run_encoder(layers, embeddings(input_ids, token_type_ids), attention_mask);
  const auto x = torch::tanh(dense(dropout(h.select(1, 0))));
  return out_proj(dropout(x));
}

TrainableModel build_bert_classifier(const ModelConfig& config) {
  return trainable(BertForSequenceClassification(config).ptr(), {"position_ids", "token_type_ids"});
}

TrainableModel build_roberta_classifier(const ModelConfig& config) {
  return trainable(RobertaForSequenceClassification(config).ptr(), {"position_ids", "token_type_ids"});
}

}  // namespace tune
