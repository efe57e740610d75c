// Finds models in the Hugging Face cache as huggingface_hub lays it out:
// $HF_HUB_CACHE or $HF_HOME/hub (default ~/.cache/huggingface/hub) / models--ORG--NAME / snapshots / REVISION.
#pragma once
#include <optional>
#include <string>

namespace tune {

// The hub cache folder the environment names (it need not exist).
std::string hf_hub_cache_dir();

// The snapshot of `repo_id` ("google-bert/bert-base-cased" or a legacy id such as "gpt2") that refs/main names,
// else the most recently written one; nullopt when the cache has no snapshot holding a config.json.
std::optional<std::string> cached_snapshot(const std::string& repo_id);

}  // namespace tune
