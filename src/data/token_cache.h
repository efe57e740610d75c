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

// The entry's name: the tokenizer's description, and every file of tokenizer_dir and of the corpus by path,
// size and modification time (nanoseconds), as make judges a file changed: naming the entry reads no text,
// which cost a short trial 25 ms of its 170. An edited file gets a new time, so a stale entry is never read;
// only a file rewritten at the same size with its old time forced back (touch -d) would fool it.
// Throws std::invalid_argument naming corpus_path when it is missing.
std::string token_cache_key(const Tokenizer& tokenizer, const std::string& tokenizer_dir, const std::string& corpus_path);

// tokenizer.encode(load_corpus(corpus_path).text), read from cache_dir/tokens when its entry exists and is
// whole, else encoded and stored (written to a temporary file and renamed, so a concurrent trial never reads
// half an entry). A missing, short or corrupt entry is recomputed; a cache that cannot be written is skipped;
// cache_dir "" disables it. *hit (optional) tells whether the ids came from the cache.
std::vector<int64_t> cached_encode(const Tokenizer& tokenizer, const std::string& tokenizer_dir,
                                   const std::string& corpus_path, const std::string& cache_dir, bool* hit = nullptr);

}  // namespace tune
