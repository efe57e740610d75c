// Turns a trial's data settings (corpus, tokenizer, dataset) into the token stream or labelled
// examples its batch source cuts batches from.
#pragma once
#include <string>

#include "data/batch_source.h"
#include "trial/trial_spec.h"

namespace tune {

// corpus_path "synthetic": no text (random ids). Returns also a line describing the data and tokenizer.
TrainingData load_training_data(const TrialSpec& spec, std::string* description);

}  // namespace tune
