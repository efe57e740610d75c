// The stages a search is made of, each in a file of its own (engine/NAME_stage.cpp), and the default list the
// engine runs. Adding a stage: a file with its SearchStage (engine/search_stage.h) and its make_ function, the
// function's declaration here, and its line in default_stages.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engine/search_stage.h"

namespace tune {

std::unique_ptr<SearchStage> make_screen_stage(const SearchSettings& settings);        // search scope
std::unique_ptr<SearchStage> make_batch_stage(const SearchSettings& settings);         // per pair
std::unique_ptr<SearchStage> make_horizon_stage(const SearchSettings& settings);       // per pair, two-stage
std::unique_ptr<SearchStage> make_rate_stage(const SearchSettings& settings);          // per pair, two-stage
std::unique_ptr<SearchStage> make_seed_check_stage(const SearchSettings& settings);    // per pair, two-stage
std::unique_ptr<SearchStage> make_time_to_loss_stage(const SearchSettings& settings);  // per pair, time-to-loss
std::unique_ptr<SearchStage> make_confirm_stage(const SearchSettings& settings);
std::unique_ptr<SearchStage> make_observe_stage(const SearchSettings& settings);       // search scope, last       // search scope, after the pairs

// The screen, the batch stage, then for objective two-stage the horizon, the learning rates and the second-seed
// check, for time-to-loss the ladder; then the paired confirmation of each precision's verdict.
StageList default_stages(const SearchSettings& settings);

// The stages' names in order ("screen, batch, ...").
std::string stage_names(const StageList& stages);

}  // namespace tune
