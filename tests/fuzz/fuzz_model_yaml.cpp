// libFuzzer target: a tested_models YAML (tune --model FILE.yaml) from arbitrary bytes, read and hashed.
// Seed corpus: tests/fuzz/corpus/model_yaml (the tiny models' YAMLs).
#include "fuzz_input.h"
#include "common/model_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = tune::fuzz::input_file(data, size, "model.yaml");
  tune::fuzz::expect_user_error_at_most([&] { tune::load_model_config(path).config_hash(); });
  return 0;
}
