// What a trial trains on, as the user named it: a corpus (or synthetic ids), the tokenizer folder and a
// classification dataset. The data layer's own settings, so it needs nothing of the trial that carries them.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace tune {

struct DataSettings {
  std::string corpus_path;    // empty: the default corpus (see data/text_corpus.h); "synthetic": random ids
  std::string tokenizer_dir;  // empty: the fallback tokenizer (data/tokenizer.h)
  std::string dataset_path;   // classification CSV (text and label columns); empty: the default
  // Classification: the share of the labelled examples set aside, never trained on, to score the trained model on
  // (data/held_out.h); 0: none.
  double held_out_share = 0;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DataSettings, corpus_path, tokenizer_dir, dataset_path, held_out_share)

}  // namespace tune
