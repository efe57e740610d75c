// The trial specification's identity key; JSON (de)serialisation is declared in the header.
// The key covers every field that changes what is measured, so reuse never mixes measurements.
#include "trial/trial_spec.h"

#include "util/hash.h"

namespace tune {

std::string to_string(TrialPurpose purpose) {
  switch (purpose) {
    case TrialPurpose::throughput: return "throughput";
    case TrialPurpose::learning_rate: return "learning_rate";
    case TrialPurpose::paired: return "paired";
  }
  return "throughput";
}

std::string TrialSpec::config_key() const {
  nlohmann::json key = *this;
  key.erase("timeout_seconds");  // a longer patience does not change the measurement
  // Keys from before these fields existed stay valid while they hold their defaults.
  if (step_clock == "wall") key.erase("step_clock");
  if (inject_slowdown == 0) key.erase("inject_slowdown");
  if (purpose != TrialPurpose::paired)
    for (const char* field : {"slowed_backend", "paired_backends", "paired_rounds", "paired_block_steps"}) key.erase(field);
  if (compile_mode == "default") key.erase("compile_mode");
  if (!dynamic_shapes) key.erase("dynamic_shapes");
  key["model"] = model.config_hash();
  return stable_hash(key.dump());
}

}  // namespace tune
