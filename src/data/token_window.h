// A window of consecutive tokens from a random offset of a token stream, shared by the language-model
// batch sources; an empty stream gives uniform word ids (synthetic, throughput-only trials).
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "common/model_config.h"

namespace tune {

// `length` tokens: from a random offset when the stream is longer, else the stream repeated;
// uniform ids in [first_word_token_id, word_id_end()) when it is empty. Draws only from `rng`.
inline std::vector<int64_t> random_token_window(const std::vector<int64_t>& stream, size_t length,
                                                const ModelConfig& config, std::mt19937_64& rng) {
  std::vector<int64_t> ids;
  ids.reserve(length);
  if (stream.size() > length) {
    std::uniform_int_distribution<size_t> start(0, stream.size() - length - 1);
    const size_t s = start(rng);
    ids.assign(stream.begin() + s, stream.begin() + s + length);
  } else if (!stream.empty()) {
    for (size_t i = 0; i < length; ++i) ids.push_back(stream[i % stream.size()]);
  } else {
    std::uniform_int_distribution<int64_t> word(config.first_word_token_id, config.word_id_end() - 1);
    for (size_t i = 0; i < length; ++i) ids.push_back(word(rng));
  }
  return ids;
}

}  // namespace tune
