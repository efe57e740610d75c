// libFuzzer target: the header of a safetensors file (model.safetensors, --weights) from arbitrary bytes.
#include "fuzz_input.h"
#include "models/safetensors_header.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tune::fuzz::expect_user_error_at_most([&] {
    const auto header = tune::parse_safetensors_header(reinterpret_cast<const char*>(data), size, "fuzz.safetensors");
    for (const auto& e : header.entries)  // what read_safetensors then copies must lie inside the input
      if (header.data_start + e.end > size) __builtin_trap();
  });
  return 0;
}
