// RoBERTa for masked-LM (Hugging Face RobertaForMaskedLM; also XLMRobertaForMaskedLM, same architecture).
// BERT's encoder layer is reused as is; embeddings and LM head follow HF's RoBERTa names and position ids.
#pragma once
#include <torch/torch.h>

#include "models/bert.h"
#include "common/model_config.h"
#include "models/model_factory.h"

namespace tune {

// HF's create_position_ids_from_input_ids: non-pad tokens count up from padding_idx + 1, pads stay padding_idx.
torch::Tensor roberta_position_ids(const torch::Tensor& input_ids, int64_t padding_idx);

// Like BERT's embeddings, but position ids come from the input ids and position_embeddings has a padding row.
struct RobertaEmbeddingsImpl : torch::nn::Module {
  explicit RobertaEmbeddingsImpl(const ModelConfig& c);
  // token_type_ids undefined: zeros (HF's buffered default).
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids);
  int64_t padding_idx;
  torch::nn::Embedding word_embeddings{nullptr}, position_embeddings{nullptr}, token_type_embeddings{nullptr};
  torch::nn::LayerNorm LayerNorm{nullptr};
  torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(RobertaEmbeddings);

struct RobertaForMaskedLMImpl : torch::nn::Module {
  explicit RobertaForMaskedLMImpl(const ModelConfig& c);
  // Logits [batch, seq, vocab].
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids,
                        const torch::Tensor& attention_mask);
  // HF's masked-LM loss: cross entropy over positions whose label is not -100.
  torch::Tensor loss(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids,
                     const torch::Tensor& attention_mask, const torch::Tensor& labels);
  ModelConfig config;
  RobertaEmbeddings embeddings{nullptr};
  std::vector<BertLayer> layers;                // HF: roberta.encoder.layer.N (RobertaLayer == BertLayer)
  torch::nn::Linear lm_head_dense{nullptr};     // HF: lm_head.dense
  torch::nn::LayerNorm lm_head_layer_norm{nullptr};
  torch::Tensor lm_head_bias;                   // HF: lm_head.bias; lm_head.decoder's weight is tied
};
TORCH_MODULE(RobertaForMaskedLM);

// The factory's entry (RobertaForMaskedLM and XLMRobertaForMaskedLM). Throws std::invalid_argument for another hf_class.
TrainableModel build_roberta(const ModelConfig& config);

}  // namespace tune
