// libFuzzer target: a tokenizer.json (HF's fast-tokenizer file) from arbitrary bytes: read, turned into tune's
// tokenizer, and a fixed text encoded.
#include "data/tokenizer_json.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = tune::fuzz::input_file(data, size, "tokenizer.json");
  tune::fuzz::expect_user_error_at_most([&] {
    const auto file = tune::read_tokenizer_json(path);
    tune::tokens_by_id(file);
    tune::tokenizer_from_json(file)->encode("Hello, world!\tunaffable  text\n[MASK] <s>");
  });
  return 0;
}
