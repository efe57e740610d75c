// Loads the corpus (or dataset) named by a trial spec and tokenizes it with the model's tokenizer
// or the fallback; the description goes to the trial log so a user sees which one was used.
#include "data/training_data.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "data/classification_csv.h"
#include "data/held_out.h"
#include "data/text_corpus.h"
#include "data/token_cache.h"
#include "data/tokenizer.h"

namespace tune {
namespace {

// Classification examples from spec.dataset_path; labels beyond the model's num_labels are a user error.
std::vector<LabelledExample> csv_examples(const ModelConfig& model, const DataSettings& data, const Tokenizer& tokenizer,
                                          std::string* description) {
  const ClassificationDataset csv = read_classification_csv(data.dataset_path);
  std::string labels;
  for (size_t i = 0; i < csv.label_names.size(); ++i)
    labels += (i ? ", " : "") + csv.label_names[i] + "=" + std::to_string(i);
  if (static_cast<int>(csv.label_names.size()) > model.num_labels)
    throw std::invalid_argument("dataset '" + csv.source + "' has " + std::to_string(csv.label_names.size()) +
                                " labels (" + labels + ") but " + model.source_path + " has config.num_labels " +
                                std::to_string(model.num_labels));
  std::vector<LabelledExample> examples;
  for (size_t i = 0; i < csv.texts.size(); ++i) examples.push_back({tokenizer.encode(csv.texts[i]), csv.labels[i]});
  if (description)
    *description = "dataset " + csv.source + " (" + std::to_string(examples.size()) + " examples, text column '" +
                   csv.text_column + "', label column '" + csv.label_column + "': " + labels + ")";
  return examples;
}

// The fallback needing no dataset: the corpus's sentences (ended by . ! ? or a blank line, 4+ tokens), each
// labelled by which of num_labels equal slices of the text it starts in. Different parts of a corpus use
// different words (other licences, other decades), so the label is learnable from the text.
std::vector<LabelledExample> corpus_part_examples(const Corpus& corpus, const Tokenizer& tokenizer, int num_labels,
                                                  std::string* description) {
  std::vector<LabelledExample> examples;
  const std::string& text = corpus.text;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool blank_line = text[i] == '\n' && i + 1 < text.size() && text[i + 1] == '\n';
    if (text[i] != '.' && text[i] != '!' && text[i] != '?' && !blank_line && i + 1 != text.size()) continue;
    auto ids = tokenizer.encode(text.substr(start, i + 1 - start));
    const int label = static_cast<int>(static_cast<double>(start) / static_cast<double>(text.size()) * num_labels);
    if (ids.size() >= 4) examples.push_back({std::move(ids), std::min(label, num_labels - 1)});
    start = i + 1;
  }
  if (examples.empty()) throw std::invalid_argument("corpus '" + corpus.source + "' holds no sentences of 4+ words");
  if (description)
    *description = "no dataset given: " + std::to_string(examples.size()) + " sentences of corpus " + corpus.source +
                   ", labelled by which of " + std::to_string(num_labels) + " equal parts of the text they come from";
  return examples;
}

// "; 400 held out for the score" (or why none were): the trial log says which rows the model never trained on.
std::string describe_held_out(const TrainingData& data, double share) {
  if (share <= 0) return "";
  if (data.held_out.empty())
    return "; none held out (" + std::to_string(std::lround(share * 100)) + "% of " +
           std::to_string(data.examples.size()) + " examples is under " + std::to_string(kMinHeldOutRows) +
           " rows): scored on the training loss";
  return "; " + std::to_string(data.held_out.size()) + " held out for the score";
}

}  // namespace

TrainingData load_training_data(const ModelConfig& model, const DataSettings& settings, std::string* description) {
  TrainingData data;
  if (settings.corpus_path == "synthetic") {
    if (description) *description = "synthetic token ids (throughput only)";
    return data;
  }
  const auto tokenizer = make_tokenizer(model, settings.tokenizer_dir);
  const bool classification = model.task == "sequence_classification";
  const std::string corpus_path = settings.corpus_path.empty() ? default_corpus_path() : settings.corpus_path;
  if (classification) {
    data.examples = settings.dataset_path.empty()
                        ? corpus_part_examples(load_corpus(corpus_path), *tokenizer, model.num_labels, description)
                        : csv_examples(model, settings, *tokenizer, description);
    data.held_out = split_held_out(data.examples, settings.held_out_share);
    if (description) *description += describe_held_out(data, settings.held_out_share) + "; " + tokenizer->describe();
    return data;
  }
  bool cached = false;
  data.stream = cached_encode(*tokenizer, settings.tokenizer_dir, corpus_path, tune_cache_dir(), &cached);
  if (description)
    *description = "corpus " + corpus_path + " (" + std::to_string(data.stream.size()) + " tokens" +
                   (cached ? ", from the token cache " + tune_cache_dir() : "") + "); " +
                   tokenizer->describe();
  return data;
}

}  // namespace tune
