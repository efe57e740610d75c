// A store filled with synthetic trials for the tested-models table tests: rows whose batch searches end
// in each way (out of memory, range cap, no gain, failure, budget), some not worth compiling; each best config
// stores why its searches stopped, as the engine stores it.
#pragma once
#include <string>

namespace tune::testing {

// Writes the synthetic store at path. Row "bert-tiny": eager stops at 8 (16 out of memory), jit reaches
// the range maximum 64 and is faster. Row "gpt2-tiny": eager stops at 4 (8 no faster), jit times out at 4
// and is slower. Row "t5-tiny": eager's last size 4 gained under 5%, jit's ramp was cut at 2 while
// still gaining, and is slower; its hf-eager reference is faster than jit. The device name holds a comma
// and quotes, for CSV quoting.
void write_table_fixture(const std::string& path);

// Adds a "gpt2-tiny" bf16 row the screen dropped whole: eager ran 9 samples/s at batch 8, jit timed out there;
// neither was searched (no best config), each with the screen's verdict and a 30-minute budget.
void add_screened_out_row(const std::string& path);

// Adds to the "bert-tiny" fp32 row a second compiled backend, "inductor:regional": slower than jit (46 samples/s at
// its best batch 8 against jit's 52 there) but a cheaper compile (1.5 s against jit's 4.5 s per shape).
void add_regional_backend(const std::string& path);

constexpr const char* kFixtureDeviceName = "Test \"CPU\", rev 2";

}  // namespace tune::testing
