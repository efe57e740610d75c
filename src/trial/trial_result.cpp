// Constructors for trial results; JSON (de)serialisation is declared in the header.
// A failed result always carries the stage it failed in and the message that explains it.
#include "trial/trial_result.h"

namespace tune {

TrialResult failed_result(TrialStatus status, const std::string& stage, const std::string& message) {
  TrialResult result;
  result.status = status;
  result.error_stage = stage;
  result.error_message = message;
  return result;
}

}  // namespace tune
