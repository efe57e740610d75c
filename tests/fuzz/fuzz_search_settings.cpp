// libFuzzer target: a search settings file (configs/search.yaml, tune --settings) from arbitrary bytes.
// Seed corpus: tests/fuzz/corpus/search_settings.
#include "engine/search_settings.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = tune::fuzz::input_file(data, size, "search.yaml");
  tune::fuzz::expect_user_error_at_most([&] { tune::load_search_settings(path); });
  return 0;
}
