// Turns data settings (corpus, tokenizer, dataset) into the token stream or labelled examples a model's
// batch source cuts batches from.
#pragma once
#include <string>

#include "data/batch_source.h"
#include "data/data_settings.h"
#include "common/model_config.h"

namespace tune {

// corpus_path "synthetic": no text (random ids). Returns also a line describing the data and tokenizer.
TrainingData load_training_data(const ModelConfig& model, const DataSettings& data, std::string* description);

}  // namespace tune
