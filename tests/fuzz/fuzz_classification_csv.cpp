// libFuzzer target: a classification dataset (--dataset FILE.csv: text and label columns) from arbitrary bytes.
#include "data/classification_csv.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = tune::fuzz::input_file(data, size, "data.csv");
  tune::fuzz::expect_user_error_at_most([&] { tune::read_classification_csv(path); });
  return 0;
}
