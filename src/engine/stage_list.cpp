// The default stage list, the one place that says what a search does and in which order.
#include "engine/stage_list.h"

#include "util/join.h"

namespace tune {

StageList default_stages(const SearchSettings& settings) {
  StageList stages;
  stages.push_back(make_screen_stage(settings));
  stages.push_back(make_batch_stage(settings));
  if (settings.objective == "time-to-loss") {
    stages.push_back(make_time_to_loss_stage(settings));
  } else {
    stages.push_back(make_horizon_stage(settings));
    stages.push_back(make_rate_stage(settings));
    stages.push_back(make_seed_check_stage(settings));
  }
  stages.push_back(make_confirm_stage(settings));
  if (!settings.observers.empty()) stages.push_back(make_observe_stage(settings));
  return stages;
}

std::string stage_names(const StageList& stages) {
  std::vector<std::string> names;
  for (const auto& stage : stages) names.push_back(stage->name());
  return join(names);
}

}  // namespace tune
