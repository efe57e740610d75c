// A corpus's token ids under one tokenizer, kept on disk between trials: every trial process of a search
// tokenized the same corpus the same way, seconds of each trial's fixed cost (2.7 s of a 4.3 s bert-tiny trial).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "data/text_corpus.h"
#include "data/tokenizer.h"

namespace tune {

// $TUNE_CACHE_DIR, else $XDG_CACHE_HOME/tune, else $HOME/.cache/tune; "" when none can be named.
std::string tune_cache_dir();

// The entry's name: the tokenizer (its description and every file in tokenizer_dir, by content) and the exact
// corpus text. Any change to either names another entry, so a stale entry is never read.
std::string token_cache_key(const Tokenizer& tokenizer, const std::string& tokenizer_dir, const Corpus& corpus);

// tokenizer.encode(corpus.text), read from cache_dir/tokens when its entry exists and is whole, else encoded
// and stored (written to a temporary file and renamed, so a concurrent trial never reads half an entry).
// A missing, short or corrupt entry is recomputed; a cache that cannot be written is skipped; cache_dir ""
// disables it. *hit (optional) tells whether the ids came from the cache.
std::vector<int64_t> cached_encode(const Tokenizer& tokenizer, const std::string& tokenizer_dir, const Corpus& corpus,
                                   const std::string& cache_dir, bool* hit = nullptr);

}  // namespace tune
