// libFuzzer target: the slow-tokenizer files (vocab.txt, vocab.json + merges.txt) from arbitrary bytes, read and
// used: the first half of the input is the vocabulary, the second the merges; a fixed text is encoded.
#include "data/bpe_tokenizer.h"
#include "data/vocabulary.h"
#include "data/wordpiece_tokenizer.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const size_t half = size / 2;
  const std::string vocab_txt = tune::fuzz::input_file(data, size, "vocab.txt");
  const std::string vocab_json = tune::fuzz::input_file(data, half, "vocab.json");
  const std::string merges = tune::fuzz::input_file(data + half, size - half, "merges.txt");
  tune::fuzz::expect_user_error_at_most([&] {
    tune::WordPieceTokenizer(vocab_txt, tune::WordPieceOptions{}).encode("Hello, world! unaffable");
  });
  tune::fuzz::expect_user_error_at_most([&] {
    tune::BpeTokenizer(vocab_json, merges, {"<|endoftext|>"}).encode("Hello, world! <|endoftext|> again");
  });
  return 0;
}
