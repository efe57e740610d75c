// `tune models`: the tested models (and tiny variants) with family, task and parameter count; with
// --describe DIR, the model YAML tune derives from a Hugging Face folder (to pin it in tested_models/).
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "hub/model_source.h"
#include "hub/model_yaml.h"
#include "common/model_config.h"
#include "util/table_format.h"

namespace tune::cli {

int run_models(int argc, char** argv) {
  po::options_description desc("tune models options");
  desc.add_options()
      ("describe", po::value<std::string>(), "print the model YAML derived from a Hugging Face folder (or any --model)")
      ("task", po::value<std::string>()->default_value(""), "head to describe (as tune --task)");
  po::variables_map vm;
  if (!parse_or_help(argc, argv, desc, vm, "tune models [--describe DIR]")) return 0;
  if (vm.count("describe")) {
    ModelSourceOptions options{vm["task"].as<std::string>(), false};
    const ModelSource source = resolve_model_source(vm["describe"].as<std::string>(), options);
    for (const auto& note : source.notes) std::cerr << "tune: note: " << note << "\n";
    std::cout << model_yaml(source.config, source.origin);
    return 0;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : list_tested_models())
    rows.push_back({m.name, m.family, m.hf_class, m.task, strf("%lld", static_cast<long long>(m.expected_parameters)),
                    std::to_string(m.default_seq_len), m.tiny ? "tiny (tests)" : "tested"});
  write_markdown_table(std::cout, {"model", "family", "HF class", "task", "parameters", "seq", "kind"}, rows);
  return 0;
}

}  // namespace tune::cli
