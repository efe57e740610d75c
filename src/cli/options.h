// The command line's shared vocabulary: parsing with a help flag, comma lists and NAME=VALUE items checked
// against what is allowed, and the flags `tune --model` and `tune trial` both take. Errors quote the flag.
#pragma once
#include <boost/program_options.hpp>

#include <string>
#include <utility>
#include <vector>

#include "data/data_settings.h"
#include "hub/model_source.h"

namespace tune::cli {

namespace po = boost::program_options;

// Parses argv (argv[0] is the subcommand) into vm, with `positional` arguments if given. Returns false when
// --help was asked (help printed).
bool parse_or_help(int argc, char** argv, po::options_description& desc, po::variables_map& vm,
                   const std::string& usage, const po::positional_options_description* positional = nullptr);

// "a,b,,c" -> {a, b, c}.
std::vector<std::string> comma_list(const std::string& text);
// A comma list whose items must be among `allowed` and that names at least one; throws std::invalid_argument
// naming the flag, the bad item and what was expected.
std::vector<std::string> checked_list(const std::string& flag, const std::string& text,
                                      const std::vector<std::string>& allowed);
// One value among `allowed`, likewise checked.
std::string one_of(const std::string& flag, const std::string& value, const std::vector<std::string>& allowed);
// "NAME=NUMBER" -> {NAME, NUMBER}; throws std::invalid_argument quoting the flag and text, with `example`.
std::pair<std::string, double> name_value(const std::string& flag, const std::string& text, const std::string& example);
// A database a command only reads (--db): throws std::invalid_argument quoting the path when it does not exist,
// so a mistyped path is an error rather than a new empty database.
void require_existing_database(const std::string& path);

extern const std::vector<std::string> kPrecisions;  // fp32, bf16, fp16
extern const std::vector<std::string> kAttentions;  // math, sdpa
extern const std::vector<std::string> kOptimizers;  // adamw, fused

// The flags of what a trial trains on and how, shared by `tune --model` and `tune trial`: --task, --hf-cache,
// --attention, --optimizer, --seq-len, --seed, --corpus, --tokenizer, --dataset, --weights.
po::options_description training_flags();
// --model with --task and --hf-cache, resolved (hub/model_source.h); says on stderr where it came from.
ModelSource model_source(const po::variables_map& vm);
struct TrainingChoice {
  std::string attention, optimizer;
  int seq_len = 0;  // 0: the model's default
  uint64_t seed = 0;
  DataSettings data;  // --corpus, --tokenizer, --dataset
  std::string weights;
};
// Reads and checks them (attention and optimizer among the allowed ones). --weights and --tokenizer default to
// the model source's (an HF folder's own files, the HF cache's for a tested model).
TrainingChoice training_choice(const po::variables_map& vm, const ModelSource& source);

}  // namespace tune::cli
