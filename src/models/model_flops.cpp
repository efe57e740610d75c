// FLOP counts per family, following the accounting of Kaplan et al. and the PaLM MFU appendix:
// 2 FLOPs per multiply-add, backward twice the forward, embeddings lookups free.
#include "models/model_flops.h"

namespace tune {
namespace {

constexpr double kTrainFactor = 3.0;  // forward + backward (input and weight gradients)

struct T5Dims {
  int64_t inner, ff_matrices, encoder_layers, decoder_layers;
};

T5Dims t5_dims(const ModelConfig& c) {
  const bool gated = c.hf_string("feed_forward_proj", "relu").rfind("gated-", 0) == 0;
  return {c.hf_int("d_kv", c.hidden_size / c.num_attention_heads) * c.num_attention_heads, gated ? 3 : 2,
          c.num_hidden_layers, c.hf_int("num_decoder_layers", c.num_hidden_layers)};
}

int64_t t5_encoder_layer(const ModelConfig& c, const T5Dims& t) {
  return 4 * c.hidden_size * t.inner + t.ff_matrices * c.hidden_size * c.intermediate_size;
}

// Self-attention and feed-forward weights of one BERT/RoBERTa/DistilBERT/GPT-2 block.
int64_t standard_layer(const ModelConfig& c) {
  return 4LL * c.hidden_size * c.hidden_size + 2LL * c.hidden_size * c.intermediate_size;
}

// The head's own dense transform (MLM) or pre-classifier, besides the logits.
int64_t head_transform(const ModelConfig& c) {
  if (c.family == "gpt2" || c.family == "t5") return 0;
  return static_cast<int64_t>(c.hidden_size) * c.hidden_size;
}

int64_t head_classes(const ModelConfig& c) { return c.task == "sequence_classification" ? c.num_labels : c.vocab_size; }

TrainingFlops t5_flops(const ModelConfig& c, double batch, double enc, double dec) {
  const T5Dims t = t5_dims(c);
  const double d = c.hidden_size;
  TrainingFlops f;
  const double decoder_layer_on_dec_tokens = t5_encoder_layer(c, t) + 2 * d * t.inner;  // + cross Q and O
  const double cross_kv_on_enc_tokens = 2 * d * t.inner;
  f.dense = kTrainFactor * 2 * batch *
            (t.encoder_layers * t5_encoder_layer(c, t) * enc +
             t.decoder_layers * (decoder_layer_on_dec_tokens * dec + cross_kv_on_enc_tokens * enc));
  f.attention = kTrainFactor * 4 * batch * t.inner *
                (t.encoder_layers * enc * enc + t.decoder_layers * (dec * dec + dec * enc));
  f.head = kTrainFactor * 2 * batch * dec * d * c.vocab_size;
  return f;
}

}  // namespace

int64_t block_matmul_parameters(const ModelConfig& c) {
  if (c.family == "t5") {
    const T5Dims t = t5_dims(c);
    return t.encoder_layers * t5_encoder_layer(c, t) +
           t.decoder_layers * (t5_encoder_layer(c, t) + 4 * c.hidden_size * t.inner);
  }
  return c.num_hidden_layers * standard_layer(c) + head_transform(c);
}

int64_t embedding_parameters(const ModelConfig& c) {
  const int64_t words = static_cast<int64_t>(c.vocab_size) * c.hidden_size;
  if (c.family == "t5") return words;  // relative position buckets are negligible
  const int64_t positions = static_cast<int64_t>(c.max_position_embeddings) * c.hidden_size;
  const bool token_types = c.family == "bert" || c.family == "roberta";
  return words + positions + (token_types ? static_cast<int64_t>(c.type_vocab_size) * c.hidden_size : 0);
}

TrainingFlops training_flops(const ModelConfig& c, int batch_size, int seq_len, int decoder_len) {
  const double b = batch_size, s = seq_len;
  if (c.family == "t5") return t5_flops(c, b, s, decoder_len);
  TrainingFlops f;
  const double head_tokens = c.task == "sequence_classification" ? b : b * s;  // a classifier sees one token
  f.dense = kTrainFactor * 2 *
            (b * s * c.num_hidden_layers * static_cast<double>(standard_layer(c)) + head_tokens * head_transform(c));
  f.attention = kTrainFactor * 4 * b * s * s * c.hidden_size * c.num_hidden_layers;
  f.head = kTrainFactor * 2 * head_tokens * c.hidden_size * static_cast<double>(head_classes(c));
  return f;
}

double model_flops_utilization(double flops_per_step, double step_seconds, double peak_flops_per_second) {
  if (step_seconds <= 0 || peak_flops_per_second <= 0) return 0;
  return flops_per_step / step_seconds / peak_flops_per_second;
}

}  // namespace tune
