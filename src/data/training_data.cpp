// Loads the corpus (or dataset) named by a trial spec and tokenizes it with the model's tokenizer
// or the fallback; the description goes to the trial log so a user sees which one was used.
#include "data/training_data.h"

#include "data/text_corpus.h"
#include "data/tokenizer.h"

namespace tune {

TrainingData load_training_data(const TrialSpec& spec, std::string* description) {
  TrainingData data;
  if (spec.corpus_path == "synthetic") {
    if (description) *description = "synthetic token ids (throughput only)";
    return data;
  }
  const auto tokenizer = make_tokenizer(spec.model, spec.tokenizer_dir);
  const Corpus corpus = spec.corpus_path.empty() ? load_default_corpus() : load_corpus(spec.corpus_path);
  data.stream = tokenizer->encode(corpus.text);
  if (description)
    *description = "corpus " + corpus.source + " (" + std::to_string(data.stream.size()) + " tokens); " +
                   tokenizer->describe();
  return data;
}

}  // namespace tune
