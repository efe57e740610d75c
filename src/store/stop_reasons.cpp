// Names of the stored stop reasons, both ways; an unknown name in a database is an error naming it.
#include "store/stop_reasons.h"

#include <stdexcept>

namespace tune {

std::string to_string(StopCause cause) {
  switch (cause) {
    case StopCause::strategy: return "strategy";
    case StopCause::trial_cap: return "max_trials";
    case StopCause::budget: return "budget";
  }
  return "strategy";
}

StopCause parse_stop_cause(const std::string& text) {
  for (auto cause : {StopCause::strategy, StopCause::trial_cap, StopCause::budget})
    if (to_string(cause) == text) return cause;
  throw std::invalid_argument("stop cause '" + text + "': expected strategy, max_trials or budget");
}

std::string to_string(BatchLimit limit) {
  switch (limit) {
    case BatchLimit::memory: return "memory";
    case BatchLimit::range: return "range";
    case BatchLimit::throughput: return "throughput";
    case BatchLimit::failure: return "failure";
    case BatchLimit::budget: return "budget";
    case BatchLimit::trials: return "trials";
  }
  return "budget";
}

BatchLimit parse_batch_limit(const std::string& text) {
  for (auto limit : {BatchLimit::memory, BatchLimit::range, BatchLimit::throughput, BatchLimit::failure,
                     BatchLimit::budget, BatchLimit::trials})
    if (to_string(limit) == text) return limit;
  throw std::invalid_argument("batch limit '" + text + "': expected memory, range, throughput, failure, budget or trials");
}

}  // namespace tune
