// libFuzzer target: a sweep file (tune sweep FILE) from arbitrary bytes, read and planned.
#include "fuzz_input.h"
#include "sweep/sweep_plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = tune::fuzz::input_file(data, size, "sweep.yaml");
  tune::fuzz::expect_user_error_at_most([&] { tune::plan_sweep(tune::read_sweep_spec(path)); });
  return 0;
}
