// The trial specification's identity key; JSON (de)serialisation is declared in the header.
// The key covers every field that changes what is measured, so reuse never mixes measurements.
#include "trial/trial_spec.h"

#include "util/hash.h"

namespace tune {

std::string to_string(TrialPurpose purpose) {
  return purpose == TrialPurpose::throughput ? "throughput" : "learning_rate";
}

std::string TrialSpec::config_key() const {
  nlohmann::json key = *this;
  key.erase("timeout_seconds");  // a longer patience does not change the measurement
  // Compile knobs at their defaults stay out of the key, so keys of trials stored before they existed still match.
  if (compile_mode == "default") key.erase("compile_mode");
  if (!dynamic_shapes) key.erase("dynamic_shapes");
  key["model"] = model.config_hash();
  return stable_hash(key.dump());
}

}  // namespace tune
