// libFuzzer target: spec.json and result.json, the files a trial's parent and child exchange, from arbitrary bytes.
// A JSON error is a typed answer here: the parent turns an unreadable result.json into a crashed trial.
#include "fuzz_input.h"
#include "trial/trial_result.h"
#include "trial/trial_spec.h"
#include "util/json_numbers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tune::fuzz::expect_user_error_at_most([&] {
    try {
      const auto json = nlohmann::json::parse(text);
      tune::check_json_numbers_fit(json, "fuzz.json");
      json.get<tune::TrialSpec>().config_key();
      nlohmann::json(json.get<tune::TrialResult>()).dump();
    } catch (const nlohmann::json::exception&) {
    }
  });
  return 0;
}
