// The shared command-line helpers: Boost.Program_options for the flags, these for the values it leaves as
// text. Unknown flags and bad values surface as errors main reports with exit code 2.
#include "cli/options.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "util/join.h"

namespace tune::cli {

const std::vector<std::string> kPrecisions{"fp32", "bf16", "fp16"};
const std::vector<std::string> kAttentions{"math", "sdpa"};
const std::vector<std::string> kOptimizers{"auto", "adamw", "fused"};

bool parse_or_help(int argc, char** argv, po::options_description& desc, po::variables_map& vm,
                   const std::string& usage, const po::positional_options_description* positional) {
  desc.add_options()("help,h", "show this help");
  po::command_line_parser parser(argc, argv);
  parser.options(desc);
  if (positional) parser.positional(*positional);
  po::store(parser.run(), vm);
  if (vm.count("help")) {
    std::cout << "usage: " << usage << "\n\n" << desc << "\n";
    return false;
  }
  po::notify(vm);
  return true;
}

std::vector<std::string> comma_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

std::vector<std::string> checked_list(const std::string& flag, const std::string& text,
                                      const std::vector<std::string>& allowed) {
  const std::vector<std::string> items = comma_list(text);
  for (const auto& item : items)
    if (std::find(allowed.begin(), allowed.end(), item) == allowed.end())
      throw std::invalid_argument(flag + ": unknown value '" + item + "' (expected " + join(allowed) + ")");
  if (items.empty()) throw std::invalid_argument(flag + " '" + text + "': expected a list of " + join(allowed));
  return items;
}

std::string one_of(const std::string& flag, const std::string& value, const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
    throw std::invalid_argument(flag + ": unknown value '" + value + "' (expected " + join(allowed) + ")");
  return value;
}

std::pair<std::string, double> name_value(const std::string& flag, const std::string& text, const std::string& example) {
  const auto eq = text.find('=');
  try {
    size_t used = 0;
    if (eq != std::string::npos && eq > 0) {
      const double value = std::stod(text.substr(eq + 1), &used);
      if (used == text.size() - eq - 1) return {text.substr(0, eq), value};
    }
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(flag + " '" + text + "': expected NAME=NUMBER, e.g. " + example);
}

void require_existing_database(const std::string& path) {
  if (!std::filesystem::exists(path))
    throw std::invalid_argument("--db '" + path + "': no such database (run `tune --model NAME --db PATH` first)");
}

po::options_description training_flags() {
  po::options_description desc("what a trial trains on");
  desc.add_options()
      ("attention", po::value<std::string>()->default_value("math"), "attention: math or sdpa")
      ("optimizer", po::value<std::string>()->default_value("auto"),
       "optimizer: adamw, fused, or auto (fused on a GPU, as fast as torch's default foreach AdamW there; else adamw)")
      ("seq-len", po::value<int>(), "sequence length (default: the model's)")
      ("seed", po::value<uint64_t>()->default_value(0), "seed for weights, batches and masking")
      ("corpus", po::value<std::string>()->default_value(""), "text file or folder to train on ('synthetic': random ids)")
      ("tokenizer", po::value<std::string>()->default_value(""), "folder with the model's tokenizer files")
      ("dataset", po::value<std::string>()->default_value(""), "classification CSV (text and label columns)")
      ("weights", po::value<std::string>()->default_value(""),
       "HF checkpoint folder or file (default: the --model folder's own, or the HF cache's for a tested model)")
      ("task", po::value<std::string>()->default_value(""),
       "head to train: masked_lm, causal_lm, span_corruption, classification (default: the checkpoint's, else the "
       "family's pre-training task)")
      ("hf-cache", po::value<std::string>()->default_value("on"),
       "on: a tested model's weights and tokenizer from the Hugging Face cache when it holds them; off: random init");
  return desc;
}

ModelSource model_source(const po::variables_map& vm) {
  ModelSourceOptions options;
  options.task = vm["task"].as<std::string>();
  options.use_hf_cache = one_of("--hf-cache", vm["hf-cache"].as<std::string>(), {"on", "off"}) == "on";
  ModelSource source = resolve_model_source(vm["model"].as<std::string>(), options);
  std::cerr << "tune: model from " << source.origin << "\n";
  for (const auto& note : source.notes) std::cerr << "tune: note: " << note << "\n";
  return source;
}

TrainingChoice training_choice(const po::variables_map& vm, const ModelSource& source) {
  TrainingChoice c;
  c.attention = one_of("--attention", vm["attention"].as<std::string>(), kAttentions);
  c.optimizer = one_of("--optimizer", vm["optimizer"].as<std::string>(), kOptimizers);
  c.seq_len = vm.count("seq-len") ? vm["seq-len"].as<int>() : 0;
  c.seed = vm["seed"].as<uint64_t>();
  c.data.corpus_path = vm["corpus"].as<std::string>();
  c.data.tokenizer_dir = vm["tokenizer"].as<std::string>();
  if (c.data.tokenizer_dir.empty()) c.data.tokenizer_dir = source.tokenizer_dir;
  c.data.dataset_path = vm["dataset"].as<std::string>();
  c.weights = vm["weights"].as<std::string>();
  if (c.weights.empty()) c.weights = source.weights;
  return c;
}

}  // namespace tune::cli
